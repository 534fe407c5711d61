/**
 * Backups and restores (docs/operations.md): {@code NodeBackups} takes and keeps this node's
 * checkpoints behind {@code BackupAdmin}; the restore tool ({@code RestoreCommand}) reads backups and
 * sends their records through {@code RestoreClient} (batches of {@code wire.BatchOperations}: the
 * tool uses the shared wire format, not replication's), and {@code RestoreHandler} is the node's side of
 * it ({@code RestoreProtocol}), writing each record through its event loop's coordinator.
 */
package io.quorumkv.backup;
