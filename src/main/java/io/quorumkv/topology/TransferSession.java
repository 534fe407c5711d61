package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.peer.Throttle;
import io.quorumkv.range.RangeSource;
import io.quorumkv.range.RemoteRangeSource;
import io.quorumkv.replication.ForeignRecords;
import io.quorumkv.storage.MetaStore;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * One transfer: the records one source sends this node in one change, pulled as a
 * {@code /internal/v0/transfer} stream, applied a batch at a time at the throttle's pace
 * (last-write-wins, so a record this node already has in a newer version changes nothing), with
 * the last key applied persisted after each batch: a restart of either side resumes after it.
 * The cursor passes a batch only once this node holds every record of it: a record it refuses
 * (its clock too far behind the version, a storage error) fails the transfer, which keeps the
 * change from its cutover, says why in its progress, and is tried again from the cursor until
 * the cause is gone. The sources drop their copies only after the cutover, so nothing a receiver
 * refused is lost. Used on one context only.
 */
final class TransferSession implements RangeSource.Listener {
  private static final System.Logger LOG = System.getLogger(TransferSession.class.getName());
  private static final int BATCH_RECORDS = 256;
  /** A failure that repeats every retry is logged again only this often. */
  private static final long REPEAT_WARNING_MS = 30_000;

  private final long epoch;
  private final NodeUrl source;
  private final NodeUrl receiver;
  private final PeerClient client;
  private final StorageService storage;
  private final MetaStore meta;
  private final HybridLogicalClock clock;
  private final Throttle throttle;
  private final int maxPayloadBytes;
  private final InstantSource wallClock;

  private TransferProgress.State state = TransferProgress.State.WAITING;
  private RemoteRangeSource stream;
  private boolean loaded;
  private boolean applying;
  private boolean closed;
  private byte[] after;
  private long records;
  private long bytes;
  private long refused;
  private long recordsAtOpen;
  private long bytesAtOpen;
  private long recordsAnnounced = -1;
  private long bytesAnnounced = -1;
  private long retryAt;
  private String lastError;
  private long warnedAt;

  TransferSession(long epoch, NodeUrl source, NodeUrl receiver, PeerClient client, StorageService storage,
                  MetaStore meta, HybridLogicalClock clock, Throttle throttle, int maxPayloadBytes,
                  InstantSource wallClock) {
    this.epoch = epoch;
    this.source = source;
    this.receiver = receiver;
    this.client = client;
    this.storage = storage;
    this.meta = meta;
    this.clock = clock;
    this.throttle = throttle;
    this.maxPayloadBytes = maxPayloadBytes;
    this.wallClock = wallClock;
  }

  String id() {
    return TransferProgress.id(epoch, source, receiver);
  }

  /** Whether it should (re)start now: never started, or failed and its retry delay passed. */
  boolean due(long now) {
    return !closed && (state == TransferProgress.State.WAITING
        || state == TransferProgress.State.FAILED && now >= retryAt);
  }

  void start() {
    state = TransferProgress.State.STREAMING;
    Future<Void> ready = loaded ? Future.succeededFuture() : storage.submit(() -> meta.read(cursorName()))
        .map(saved -> {
          restore(saved);
          return null;
        });
    ready.onComplete(done -> {
      if (closed) {
        return;
      }
      if (done.failed()) {
        fail("cannot read its cursor: " + done.cause().getMessage());
      } else if (state == TransferProgress.State.DONE) {
        LOG.log(System.Logger.Level.INFO, "transfer from " + source + " already complete");
      } else {
        open();
      }
    });
  }

  private void open() {
    String query = "epoch=" + epoch + "&to=" + encode(receiver.toString())
        + (after == null ? "" : "&after=" + Base64.getUrlEncoder().withoutPadding().encodeToString(after));
    recordsAtOpen = records;
    bytesAtOpen = bytes;
    recordsAnnounced = -1;
    bytesAnnounced = -1;
    stream = new RemoteRangeSource(client, InternalEndpoint.TRANSFER, source, query, maxPayloadBytes);
    stream.start(this);
  }

  @Override
  public void ready() {
    if (recordsAnnounced < 0 && stream != null) {
      recordsAnnounced = parse(stream.header(TransferProtocol.RECORDS_HEADER));
      bytesAnnounced = parse(stream.header(TransferProtocol.BYTES_HEADER));
    }
    drain();
  }

  @Override
  public void failed(RangeSource failedSource, Throwable cause) {
    fail(cause.getMessage());
  }

  private void drain() {
    if (applying || closed || state != TransferProgress.State.STREAMING || stream == null) {
      return;
    }
    List<RangeEntry> batch = new ArrayList<>(BATCH_RECORDS);
    long batchBytes = 0;
    while (batch.size() < BATCH_RECORDS && stream.peek() != null) {
      RangeEntry entry = stream.poll();
      batch.add(entry);
      batchBytes += entry.key().length + entry.value().length;
    }
    if (batch.isEmpty()) {
      if (stream.exhausted()) {
        finish();
      }
      return;
    }
    applying = true;
    long size = batchBytes;
    throttle.acquire(batch.size(), size)
        .compose(paced -> applyAll(batch))
        .compose(applied -> {
          after = batch.get(batch.size() - 1).key();
          records += batch.size();
          bytes += size;
          return persist(false).recover(e -> Future.failedFuture("cannot store its cursor: " + e.getMessage()));
        })
        .onComplete(done -> {
          applying = false;
          if (done.failed()) {
            fail(done.cause().getMessage());
          } else {
            drain();
          }
        });
  }

  /** Stores the batch; fails, saying why, unless this node now holds every record of it (or a newer version). */
  private Future<?> applyAll(List<RangeEntry> batch) {
    List<Future<?>> applied = new ArrayList<>(batch.size());
    for (RangeEntry entry : batch) {
      applied.add(ForeignRecords.apply(clock, storage, entry.key(), entry.record()));
    }
    return Future.join(applied).recover(failed -> {
      List<Throwable> causes = applied.stream().filter(Future::failed).map(Future::cause).toList();
      refused += causes.size();
      return Future.failedFuture(TransferRefusal.describe(receiver, causes, batch.size()));
    });
  }

  private void finish() {
    persist(true).onComplete(done -> {
      if (done.failed()) {
        fail("cannot store its end: " + done.cause().getMessage());
        return;
      }
      state = TransferProgress.State.DONE;
      closeStream();
      LOG.log(System.Logger.Level.INFO, describe());
    });
  }

  private void fail(String reason) {
    if (closed || state == TransferProgress.State.DONE) {
      return;
    }
    long now = wallClock.millis();
    boolean news = !reason.equals(lastError) || now - warnedAt >= REPEAT_WARNING_MS;
    state = TransferProgress.State.FAILED;
    lastError = reason;
    retryAt = now + TransferReceiver.RETRY_MS;
    closeStream();
    if (news) {
      warnedAt = now;
      LOG.log(System.Logger.Level.WARNING, "transfer from " + source + " failed after " + records + " records, "
          + "retrying from its cursor every " + TransferReceiver.RETRY_MS + " ms: " + reason);
    }
  }

  void close() {
    closed = true;
    closeStream();
  }

  private void closeStream() {
    if (stream != null) {
      stream.close();
      stream = null;
    }
  }

  private Future<?> persist(boolean done) {
    JsonObject saved = new JsonObject().put("records", records).put("bytes", bytes).put("done", done)
        .put("after", after == null ? null : Base64.getEncoder().encodeToString(after));
    return storage.submit(() -> {
      meta.write(cursorName(), saved.encode().getBytes(StandardCharsets.UTF_8));
      return null;
    });
  }

  private void restore(byte[] saved) {
    loaded = true;
    if (saved == null) {
      return;
    }
    JsonObject json = new JsonObject(new String(saved, StandardCharsets.UTF_8));
    records = json.getLong("records", 0L);
    bytes = json.getLong("bytes", 0L);
    String key = json.getString("after");
    after = key == null ? null : Base64.getDecoder().decode(key);
    if (json.getBoolean("done", false)) {
      state = TransferProgress.State.DONE;
    }
  }

  private String cursorName() {
    return "transfer|" + id();
  }

  JsonObject progress() {
    long recordsRemaining = state == TransferProgress.State.DONE ? 0
        : recordsAnnounced < 0 ? -1 : Math.max(0, recordsAnnounced - (records - recordsAtOpen));
    long bytesRemaining = state == TransferProgress.State.DONE ? 0
        : bytesAnnounced < 0 ? -1 : Math.max(0, bytesAnnounced - (bytes - bytesAtOpen));
    return TransferProgress.of(epoch, source, receiver, state, records, bytes, recordsRemaining, bytesRemaining,
        lastError);
  }

  String describe() {
    JsonObject progress = progress();
    long remaining = progress.getLong("recordsRemaining");
    return "transfer from " + source + " to " + receiver + " (epoch " + epoch + "): " + Topology.name(state) + ", "
        + records + (remaining < 0 ? "" : " of " + (records + remaining)) + " records, " + bytes
        + (remaining < 0 ? "" : " of " + (bytes + progress.getLong("bytesRemaining"))) + " bytes"
        + (refused > 0 ? ", " + refused + " refused so far (" + lastError + ")" : "");
  }

  private static long parse(String header) {
    try {
      return header == null ? -1 : Long.parseLong(header);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }
}
