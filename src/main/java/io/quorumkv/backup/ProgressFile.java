package io.quorumkv.backup;

import java.nio.file.Path;

/**
 * Where a restore keeps its progress, and whose progress it is: the restore's
 * {@link RestoreOptions#fingerprint} (its backups, url, range and mode), which names the default
 * file, and the id of the cluster it writes to, which a resume must find again.
 */
record ProgressFile(Path path, String fingerprint, String clusterId) {
}
