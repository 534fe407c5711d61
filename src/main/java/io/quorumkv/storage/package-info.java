/**
 * Local storage on RocksDB, only ever called on storage worker threads. {@code RocksDatabase}
 * owns the one RocksDB instance, its column families and lifecycle; on it, {@code RocksStore} is
 * the record engine (read-compare-write by version, group commit, range cursors, purge) behind
 * the {@code Store} interface that test layers wrap, and {@code RocksMetaStore} keeps small named
 * values such as the clock bound. {@code StorageService} is the view event loops get: every call
 * runs on a {@code StorageVerticle} through {@code WorkerContextExecutor}, single-key calls
 * grouped per calling event loop by {@code GroupedStorage}, and answers as a Future.
 */
package io.quorumkv.storage;
