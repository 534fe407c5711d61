package io.quorumkv.http;

import io.quorumkv.support.NodeProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Watches the fuzzed node while the run lasts, once a second: that its process is alive, how
 * much disk its directory (data, JFR recordings and repository) takes, failing the run past a
 * limit, and how many files it holds open. Prints progress now and then, for long runs.
 */
final class FuzzWatch implements Runnable {
  private final NodeProcess node;
  private final Path dir;
  private final long maxDiskBytes;
  private final FuzzTally tally;
  private final long startNanos;
  private final long progressEveryNanos;
  private long lastProgressNanos;
  private volatile long peakDiskBytes;
  private volatile boolean died;
  private final long firstOpenFiles;
  private volatile long lastOpenFiles;
  private volatile long peakOpenFiles;

  FuzzWatch(NodeProcess node, Path dir, long maxDiskBytes, FuzzTally tally, long progressEverySeconds) {
    this.node = node;
    this.dir = dir;
    this.maxDiskBytes = maxDiskBytes;
    this.tally = tally;
    this.startNanos = System.nanoTime();
    this.lastProgressNanos = startNanos;
    this.progressEveryNanos = progressEverySeconds * 1_000_000_000L;
    this.firstOpenFiles = openFiles(node.pid());
    this.peakOpenFiles = firstOpenFiles;
  }

  @Override
  public void run() {
    if (!node.isAlive() && !died) {
      died = true;
      tally.fail("the node died; its log ends:\n" + tail(node.log()));
    }
    lastOpenFiles = openFiles(node.pid());
    peakOpenFiles = Math.max(peakOpenFiles, lastOpenFiles);
    long disk = diskBytes(dir);
    if (disk > peakDiskBytes) {
      peakDiskBytes = disk;
      if (disk > maxDiskBytes) {
        tally.fail("the node's directory takes " + disk / (1 << 20) + " MiB, over the limit of "
            + maxDiskBytes / (1 << 20) + " MiB");
      }
    }
    long now = System.nanoTime();
    if (now - lastProgressNanos >= progressEveryNanos) {
      lastProgressNanos = now;
      double seconds = (now - startNanos) / 1e9;
      System.out.printf("RequestFuzzTest progress: %,d requests in %.0f s (%.0f req/s), answers %s, disk %d MiB, failures %d%n",
          tally.sent(), seconds, tally.sent() / seconds, tally.statusClasses(), disk / (1 << 20), tally.failureCount());
    }
  }

  long peakDiskBytes() {
    return peakDiskBytes;
  }

  /** The node's open file descriptors: before the run, at the last look, and at most (a leak would grow them). */
  String openFiles() {
    return firstOpenFiles + " before, " + lastOpenFiles + " after (peak " + peakOpenFiles + ")";
  }

  /** Entries of /proc/PID/fd, or -1 where there is no /proc. */
  private static long openFiles(long pid) {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return fds.count();
    } catch (IOException | UncheckedIOException e) {
      return -1;
    }
  }

  boolean died() {
    return died || !node.isAlive();
  }

  /** Bytes of the regular files under {@code dir}; files deleted while it walks (RocksDB compactions) are skipped. */
  static long diskBytes(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.mapToLong(FuzzWatch::sizeOrZero).sum();
    } catch (IOException | UncheckedIOException e) {
      return 0;
    }
  }

  private static long sizeOrZero(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.size(file) : 0;
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String tail(String log) {
    String[] lines = log.split("\n");
    return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 20), lines.length));
  }
}
