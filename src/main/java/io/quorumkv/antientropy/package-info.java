/**
 * Active anti-entropy: per pair of nodes, hash trees over the records both should hold, kept
 * current with every write, compared periodically; the freshest copy of each differing key is
 * copied where it is missing. Exchanges also decide when a tombstone may be purged. The tree
 * protocol lives here whole: {@code TreeClient}, {@code TreeHandler} with {@code TreeService},
 * {@code TreeProtocol}.
 */
package io.quorumkv.antientropy;
