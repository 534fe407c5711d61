/**
 * Hinted handoff. A write that a replica missed is kept by its coordinator as a {@code Hint} in a
 * {@code HintStore} (its own column family of the node's RocksDB, laid out by {@code HintCodec}),
 * and {@code HintedHandoff} replays the hints to their target when membership sees it join and by
 * periodic retry, dropping those older than the hint window. Targets are typed node urls.
 */
package io.quorumkv.hints;
