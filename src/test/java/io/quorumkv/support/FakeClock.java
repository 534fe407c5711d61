package io.quorumkv.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One node's wall clock, offset at run time through libfaketime (Debian {@code libfaketime}).
 * The node's JVM starts with the library preloaded and reads its offset from a file of its own
 * ({@code FAKETIME_TIMESTAMP_FILE}); {@link #setOffsetMillis} rewrites the file, and the node
 * follows within {@link #FOLLOWS_WITHIN_MS}, without a restart.
 *
 * <p>Measured on a 2-core machine (2026-11-23): libfaketime's "monotonic fix", which it turns on
 * by itself on this glibc, makes the JVM's timed waits return at once, so a node took 14-100 s
 * (25 s of CPU) to start; with the fix off it starts like a plain JVM (2-3 s). Only the wall
 * clock is faked: the monotonic clock, which timeouts and timers use, is left alone. Re-reading
 * the file on every call ({@code FAKETIME_NO_CACHE}) costs 10-16 us per wall-clock read; a cache
 * of one second costs 0.1-0.3 us, like a fixed {@code FAKETIME} (a plain read takes 0.05 us).
 */
public final class FakeClock {
  /** How long a node may keep its previous offset after {@link #setOffsetMillis}. */
  public static final long FOLLOWS_WITHIN_MS = 1_000;
  private static final List<String> LIBRARY_PATHS = List.of(
      "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
      "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
      "/usr/lib/faketime/libfaketime.so.1",
      "/usr/local/lib/faketime/libfaketime.so.1");

  private final Path library;
  private final Path file;
  private volatile long offsetMillis;

  private FakeClock(Path library, Path file) {
    this.library = library;
    this.file = file;
  }

  /** The preload library: {@code -Dlibfaketime=PATH}, else where Debian and a source install put it. */
  public static Optional<Path> library() {
    String configured = System.getProperty("libfaketime");
    if (configured != null) {
      return Optional.of(Path.of(configured)).filter(Files::isReadable);
    }
    return LIBRARY_PATHS.stream().map(Path::of).filter(Files::isReadable).findFirst();
  }

  /** A clock at offset 0 whose setting lives in {@code file}; fails if libfaketime is not installed. */
  public static FakeClock create(Path file) throws IOException {
    Path library = library().orElseThrow(() -> new IllegalStateException("libfaketime is not installed"
        + " (apt-get install faketime, or -Dlibfaketime=PATH)"));
    FakeClock clock = new FakeClock(library, file);
    clock.setOffsetMillis(0);
    return clock;
  }

  /** The environment a node's JVM needs to run on this clock. */
  public Map<String, String> environment() {
    return Map.of(
        "LD_PRELOAD", library.toString(),
        "FAKETIME_TIMESTAMP_FILE", file.toString(),
        "FAKETIME_CACHE_DURATION", Long.toString(FOLLOWS_WITHIN_MS / 1_000),
        "FAKETIME_DONT_FAKE_MONOTONIC", "1",
        "FAKETIME_FORCE_MONOTONIC_FIX", "0");
  }

  /** Sets the node's wall clock {@code offsetMillis} ahead of the real one (behind if negative). */
  public void setOffsetMillis(long offsetMillis) throws IOException {
    // Written aside and renamed, so the library never reads a half-written setting.
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, String.format(Locale.ROOT, "%+.3fs%n", offsetMillis / 1_000.0), StandardCharsets.UTF_8);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    this.offsetMillis = offsetMillis;
  }

  public long offsetMillis() {
    return offsetMillis;
  }

  /**
   * libfaketime creates a shared-memory segment and a semaphore named after each process and
   * removes them when the process exits; after {@code kill -9} they stay, and a later process
   * given the same pid would fail on them. Call after killing a process that ran on a fake clock.
   */
  public static void releaseSharedMemory(long pid) {
    for (String name : List.of("faketime_shm_" + pid, "sem.faketime_sem_" + pid)) {
      try {
        Files.deleteIfExists(Path.of("/dev/shm", name));
      } catch (IOException e) {
        System.err.println("could not remove /dev/shm/" + name + ": " + e);
      }
    }
  }
}
