package io.quorumkv.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** File chores of the tests. */
public final class TestFiles {
  private TestFiles() {
  }

  /** Deletes the directory and everything in it; only for a directory the caller created. */
  public static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
