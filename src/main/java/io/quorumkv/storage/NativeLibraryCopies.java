package io.quorumkv.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * RocksJava copies its native library (17 MB) into {@code java.io.tmpdir} at every start and deletes
 * the copy only when the JVM exits cleanly, so each node killed or crashed left one behind (a test
 * run's killed nodes filled a disk with thousands). Once loaded the copy is no longer needed: the
 * process keeps its mapping. This deletes the copies this process has mapped, and no other file.
 */
final class NativeLibraryCopies {
  private static final System.Logger LOG = System.getLogger(NativeLibraryCopies.class.getName());
  private static final Path MAPS = Path.of("/proc/self/maps");
  private static final String PREFIX = "librocksdbjni";

  private NativeLibraryCopies() {
  }

  /** Call once RocksDB's library is loaded. Linux only; elsewhere it does nothing. */
  static void deleteLoaded() {
    if (!Files.isReadable(MAPS)) {
      return;
    }
    Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize();
    for (Path copy : mappedCopies(tmp)) {
      try {
        Files.deleteIfExists(copy);
      } catch (IOException e) {
        LOG.log(System.Logger.Level.DEBUG, "cannot delete " + copy + ": " + e.getMessage());
      }
    }
  }

  private static List<Path> mappedCopies(Path tmp) {
    try (Stream<String> maps = Files.lines(MAPS)) {
      return maps.map(line -> line.indexOf('/') < 0 ? null : line.substring(line.indexOf('/')))
          .filter(file -> file != null && !file.endsWith(" (deleted)"))
          .map(Path::of)
          .filter(file -> tmp.equals(file.getParent()) && file.getFileName().toString().startsWith(PREFIX)
              && file.getFileName().toString().endsWith(".so"))
          .distinct()
          .toList();
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "cannot read " + MAPS + ": " + e.getMessage());
      return List.of();
    }
  }
}
