/**
 * Local storage on RocksDB, called on storage worker threads but for the calls that cannot wait
 * ({@code Store.getCached}, and with {@code storage.writesOnLoop} {@code Store.tryApplyAll},
 * bounded by {@code LoopWrites}), which event loops make themselves. {@code OpenedStorage}
 * opens the one RocksDB instance ({@code RocksDatabase}: its column families and lifecycle) and the
 * stores on it: {@code RocksStore}, the record engine (read-compare-write by version, group commit,
 * range cursors, purge) behind the {@code Store} interface that test layers wrap, the
 * {@code RecordIndex}, and {@code RocksMetaStore}, the node's own named values (the clock bound,
 * the index format, the topology it applied, transfer cursors). {@code StorageService} is the view
 * event loops get: every call runs on a {@code StorageVerticle} through
 * {@code WorkerContextExecutor}, single-key calls grouped per calling event loop by
 * {@code GroupedStorage}, and answers as a Future.
 */
package io.quorumkv.storage;
