package io.quorumkv.backup;

import io.quorumkv.web.ClientTls;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The command line of {@code java -jar quorumkv.jar restore}; an IllegalArgumentException says what
 * is wrong with one.
 *
 * @param start    first key of the range, null for the first there is
 * @param end      the range's end (excluded), null for no bound
 * @param rollback make the range read as in the backup, at fresh versions (deleting what it lacks)
 * @param progress where the restore keeps how far it got, so a rerun resumes there; null for the default
 *                 ({@code ~/.quorumkv/restore/}, named after what the restore does)
 * @param fromScratch ignore the progress a previous run kept
 * @param tls      the CA (and client certificate) to reach an https node with
 */
public record RestoreOptions(List<Path> from, URI url, String token, byte[] start, byte[] end, boolean rollback,
                             long recordsPerSecond, int batchRecords, int inFlightBatches, Path progress,
                             boolean fromScratch, ClientTls tls) {
  public static final long DEFAULT_RECORDS_PER_SECOND = 5_000;
  public static final int DEFAULT_BATCH_RECORDS = 500;
  public static final int DEFAULT_IN_FLIGHT_BATCHES = 4;
  public static final String TOKEN_VARIABLE = "QUORUMKV_ADMIN_TOKEN";
  static final String USAGE = """
      usage: java -jar quorumkv.jar restore --from DIR [--from DIR...] --url URL [options]
        --from DIR       a node backup, or a directory of node backups (repeatable)
        --url URL        any node of the cluster to restore into
        --token TOKEN    the cluster's admin token (or set QUORUMKV_ADMIN_TOKEN)
        --start KEY      restore only keys >= KEY
        --end KEY        restore only keys < KEY
        --rollback       make [start, end) read as in the backup: its records written again at fresh
                         versions, the range's keys the backup lacks deleted (needs --start)
        --rate N         records a second at most (default 5000)
        --batch N        records a request (default 500, at most 1000)
        --progress FILE  where progress is kept for a rerun to resume (default: in ~/.quorumkv/restore/)
        --from-scratch   ignore the progress of an earlier run
        --cacert FILE    the CA an https node's certificate must chain to (default: the JDK's)
        --cert F --key F a client certificate and its key, for a node that asks for one""";

  public static RestoreOptions parse(List<String> args, String environmentToken) {
    List<Path> from = new ArrayList<>();
    String url = null;
    String token = environmentToken;
    String start = null;
    String end = null;
    boolean rollback = false;
    long rate = DEFAULT_RECORDS_PER_SECOND;
    int batch = DEFAULT_BATCH_RECORDS;
    Path progress = null;
    boolean fromScratch = false;
    ClientTls tls = ClientTls.NONE;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      switch (arg) {
        case "--rollback" -> rollback = true;
        case "--from-scratch" -> fromScratch = true;
        case "--from", "--url", "--token", "--start", "--end", "--rate", "--batch", "--progress", "--cacert",
             "--cert", "--key" -> {
          if (i + 1 == args.size()) {
            throw new IllegalArgumentException(arg + " needs a value");
          }
          String value = args.get(++i);
          switch (arg) {
            case "--from" -> from.add(Path.of(value));
            case "--url" -> url = value;
            case "--token" -> token = value;
            case "--start" -> start = nonEmpty(arg, value);
            case "--end" -> end = nonEmpty(arg, value);
            case "--rate" -> rate = positive(arg, value, Long.MAX_VALUE);
            case "--batch" -> batch = (int) positive(arg, value, 1000);
            case "--progress" -> progress = Path.of(value);
            default -> tls = tls.with(arg, value);
          }
        }
        default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
      }
    }
    if (from.isEmpty()) {
      throw new IllegalArgumentException("--from is required");
    }
    if (url == null) {
      throw new IllegalArgumentException("--url is required");
    }
    URI uri;
    try {
      uri = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--url is not a URL: " + url);
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException("--url must be http://HOST:PORT or https://HOST:PORT, got " + url);
    }
    if (rollback && start == null) {
      throw new IllegalArgumentException("--rollback needs --start (and usually --end): it deletes every key of"
          + " its range that the backup lacks");
    }
    byte[] startKey = start == null ? null : start.getBytes(StandardCharsets.UTF_8);
    byte[] endKey = end == null ? null : end.getBytes(StandardCharsets.UTF_8);
    if (startKey != null && endKey != null && java.util.Arrays.compareUnsigned(startKey, endKey) >= 0) {
      throw new IllegalArgumentException("--start must come before --end");
    }
    return new RestoreOptions(List.copyOf(from), uri, token, startKey, endKey, rollback, rate, batch,
        DEFAULT_IN_FLIGHT_BATCHES, progress, fromScratch, tls.checked());
  }

  /**
   * Names what this restore does: its backups (where they are, and which node, name and time each
   * manifest gives), the cluster's url, the range and the mode. Only the same restore resumes from its
   * progress, and only into the same cluster ({@link ProgressFile} keeps its id beside this).
   */
  String fingerprint(List<BackupManifest> manifests) {
    StringBuilder text = new StringBuilder();
    from.forEach(path -> text.append(path.toAbsolutePath().normalize()).append('\n'));
    manifests.forEach(manifest -> text.append(manifest.node()).append(' ').append(manifest.name()).append(' ')
        .append(manifest.createdAtMillis()).append('\n'));
    text.append(url).append('\n').append(rollback).append('\n')
        .append(start == null ? "" : HexFormat.of().formatHex(start)).append('\n')
        .append(end == null ? "" : HexFormat.of().formatHex(end));
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String nonEmpty(String name, String value) {
    if (value.isEmpty()) {
      throw new IllegalArgumentException(name + " must not be empty");
    }
    return value;
  }

  private static long positive(String name, String value, long max) {
    try {
      long parsed = Long.parseLong(value);
      if (parsed >= 1 && parsed <= max) {
        return parsed;
      }
    } catch (NumberFormatException ignored) {
      // answered below
    }
    throw new IllegalArgumentException(name + " must be a whole number from 1 to " + max + ", got '" + value + "'");
  }
}
