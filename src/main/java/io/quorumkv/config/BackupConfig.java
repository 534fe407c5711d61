package io.quorumkv.config;

import java.nio.file.Path;

/**
 * Where a node keeps its backups ({@code POST /admin/backup}) and how many.
 *
 * @param dir    the directory of this node's backups, one subdirectory per backup; on the data
 *               directory's file system a backup costs hard links, not a copy
 * @param retain how many backups to keep: after each new one, the oldest beyond this many are
 *               deleted; 0 keeps every backup
 */
public record BackupConfig(Path dir, int retain) {
  public static final String DEFAULT_SUBDIRECTORY = "backups";

  /** Backups under {@code dataDir/backups}, all kept. */
  public static BackupConfig defaults(Path dataDir) {
    return new BackupConfig(dataDir.resolve(DEFAULT_SUBDIRECTORY), 0);
  }
}
