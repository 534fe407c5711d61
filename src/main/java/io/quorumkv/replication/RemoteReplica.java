package io.quorumkv.replication;

import io.netty.channel.ConnectTimeoutException;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.replication.BatchAnswers.Answer;
import io.quorumkv.storage.DiskFullException;
import io.quorumkv.storage.Record;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.BatchOperations.Operation;
import io.quorumkv.wire.Frame;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.PromiseInternal;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Another node as a replica: batches of reads and writes on a {@link BatchStream}, or, to a node
 * that does not serve batch streams (an older version), as {@code POST}s to its internal batch
 * endpoint with a pooled keep-alive client, trying the stream again after {@link #STREAM_RETRY_MS}.
 * One batch at a time is in flight to the node: the reads and writes asked for meanwhile wait
 * and leave together when it returns, so under load one HTTP exchange (and one storage group on
 * the replica) carries many records, and an idle replica gets each operation at once, alone.
 * Only when a full batch is waiting does another leave beside the one in flight, up to
 * {@link #MAX_IN_FLIGHT}.
 *
 * <p>Every operation fails after the replica timeout ({@link InternalEndpoint.Timeout#REPLICA}) from
 * when it was asked for, waiting included, plus the time its bytes take at {@link #SLOWEST_BYTES_PER_MS}:
 * a value at the 16 MiB limit has four seconds more to cross the wire and reach the replica's disk
 * than a small one.
 */
public final class RemoteReplica implements Replica {
  static final int MAX_IN_FLIGHT = 4;
  static final int MAX_BATCH_OPERATIONS = InternalProtocol.MAX_BATCH_OPERATIONS;
  /** A batch stops taking operations past this size (a single larger one still goes, alone). */
  static final int MAX_BATCH_BYTES = 1 << 20;
  static final long STREAM_RETRY_MS = 60_000;
  /** The slowest a replica is expected to take in a write's bytes (4 MiB/s): what a large value adds to its timeout. */
  static final long SLOWEST_BYTES_PER_MS = 4 * 1024 * 1024 / 1000;

  private final Vertx vertx;
  private final NodeUrl node;
  private final PeerClient client;
  private final BatchStream stream;
  private final long timeoutMs;
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private long waitingBytes;
  private int inFlight;
  /** Until then, batches go over HTTP: the node refused the stream (set from the stream's context, read from any). */
  private volatile long streamRetryAtNanos = System.nanoTime();

  RemoteReplica(Vertx vertx, NodeUrl node, PeerClient client, BatchStream stream) {
    this.vertx = vertx;
    this.node = node;
    this.client = client;
    this.stream = stream;
    this.timeoutMs = client.timeoutMs(InternalEndpoint.RECORD_BATCH);
  }

  @Override
  public Future<Record> read(byte[] key) {
    return ask(new Operation(key, null)).map(Answer::record);
  }

  @Override
  public Future<Record> readDigest(byte[] key) {
    return ask(Operation.digestRead(key)).map(Answer::record);
  }

  @Override
  public Future<WriteAnswer> write(byte[] key, Record record) {
    return ask(new Operation(key, record)).compose(answer -> answer.write() == null
        ? Future.failedFuture(new ReplicaFailure(ReplicaFailure.Kind.FAILED, "answered a write with a read"))
        : Future.succeededFuture(answer.write()));
  }

  /**
   * Opens the batch stream now, so that the first batch need not wait for the connection; a node
   * that refuses streams gets its batches as {@code POST}s, as {@link #send} would decide. Fails
   * when the node cannot be reached.
   */
  Future<Void> connectAhead() {
    if (refusedStreamLately()) {
      return Future.succeededFuture();
    }
    return stream.open().recover(failure -> {
      if (failure instanceof BatchStream.UpgradeRefusedException) {
        streamRefused();
        return Future.succeededFuture();
      }
      return Future.failedFuture(failure);
    });
  }

  /** The node answered an upgrade with another status than 101: batches go as POSTs until the retry. */
  private void streamRefused() {
    streamRetryAtNanos = System.nanoTime() + STREAM_RETRY_MS * 1_000_000;
  }

  private boolean refusedStreamLately() {
    return System.nanoTime() - streamRetryAtNanos < 0;
  }

  private Future<Answer> ask(Operation operation) {
    PromiseInternal<Answer> answer = ((ContextInternal) vertx.getOrCreateContext()).promise();
    synchronized (this) {
      waiting.add(new Waiting(operation, System.nanoTime() + timeoutMsFor(operation) * 1_000_000, answer));
      waitingBytes += operation.encodedSize();
    }
    sendWhatMayLeave();
    return answer.future();
  }

  /**
   * The operations of the next batch when one may leave now (none is in flight, or a full batch
   * waits and fewer than {@link #MAX_IN_FLIGHT} are), with those past their deadline failed; null
   * otherwise. Holds the lock.
   */
  private List<Waiting> nextBatch() {
    boolean fullBatchWaiting = waiting.size() >= MAX_BATCH_OPERATIONS || waitingBytes >= MAX_BATCH_BYTES;
    if (waiting.isEmpty() || inFlight >= MAX_IN_FLIGHT || (inFlight > 0 && !fullBatchWaiting)) {
      return null;
    }
    List<Waiting> batch = new ArrayList<>();
    Map<ByteBuffer, Waiting> reads = new HashMap<>();
    Map<ByteBuffer, Waiting> digestReads = new HashMap<>();
    int bytes = 0;
    long now = System.nanoTime();
    while (!waiting.isEmpty() && batch.size() < MAX_BATCH_OPERATIONS
        && (batch.isEmpty() || bytes + waiting.peek().operation().encodedSize() <= MAX_BATCH_BYTES)) {
      Waiting next = waiting.poll();
      waitingBytes -= next.operation().encodedSize();
      if (next.deadlineNanos() <= now) {
        next.answer().tryFail(timedOut());
        continue;
      }
      if (next.operation().isRead()) {
        // Reads of one key that leave together are one read: the replica would answer each with
        // the same record, and a large value would fill the answer once per reader. A digest read
        // shares only another's digest, never a read's value.
        Map<ByteBuffer, Waiting> sameKind = next.operation().digest() ? digestReads : reads;
        Waiting same = sameKind.putIfAbsent(ByteBuffer.wrap(next.operation().key()), next);
        if (same != null) {
          same.answer().future().onComplete(next.answer());
          continue;
        }
      }
      bytes += next.operation().encodedSize();
      batch.add(next);
    }
    if (batch.isEmpty()) {
      return null;
    }
    inFlight++;
    return batch;
  }

  /** The replica timeout, and the time the operation's bytes may take on top of it. */
  private long timeoutMsFor(Operation operation) {
    return timeoutMs + operation.encodedSize() / SLOWEST_BYTES_PER_MS;
  }

  /** Sends batches while {@link #nextBatch} lets one leave. */
  private void sendWhatMayLeave() {
    while (true) {
      List<Waiting> batch;
      synchronized (this) {
        batch = nextBatch();
      }
      if (batch == null) {
        return;
      }
      send(batch);
    }
  }

  private void send(List<Waiting> batch) {
    if (refusedStreamLately()) {
      post(batch);
      return;
    }
    List<Operation> operations = operationsOf(batch, stream.peerTakesDigests());
    stream.exchange(BatchOperations.payloadInParts(operations), remainingMs(batch)).onComplete(done -> {
      if (done.failed() && done.cause() instanceof BatchStream.UpgradeRefusedException) {
        streamRefused();
        post(batch);
        return;
      }
      answer(batch, done.failed() ? failureOf(done.cause()) : null, done.result());
      returned();
    });
  }

  private static Buffer encode(List<Waiting> batch) {
    return BatchOperations.encode(operationsOf(batch, false));
  }

  /** The batch's operations, its digest reads as plain reads unless the peer said it takes them. */
  private static List<Operation> operationsOf(List<Waiting> batch, boolean digests) {
    return batch.stream().map(Waiting::operation)
        .map(operation -> operation.digest() && !digests ? new Operation(operation.key(), null) : operation)
        .toList();
  }

  /** The batch may wait no longer than its most pressed operation. */
  private static long remainingMs(List<Waiting> batch) {
    return Math.max(1, (batch.stream().mapToLong(Waiting::deadlineNanos).min().orElseThrow() - System.nanoTime())
        / 1_000_000);
  }

  /** A batch over HTTP, to a node that does not serve batch streams. */
  private void post(List<Waiting> batch) {
    long remainingMs = remainingMs(batch);
    HttpRequest<Buffer> request = client.webRequest(InternalEndpoint.RECORD_BATCH, node, null).timeout(remainingMs);
    // The request's own timeout starts once it has a connection; the Future's covers the wait for one too.
    request.sendBuffer(encode(batch))
        .timeout(remainingMs, TimeUnit.MILLISECONDS)
        .onComplete(done -> {
          answer(batch, done.failed() ? failureOf(done.cause()) : null, done.failed() ? null : done.result());
          returned();
        });
  }

  /** A batch came back (answered or failed): the next may leave. */
  private void returned() {
    synchronized (this) {
      inFlight--;
    }
    sendWhatMayLeave();
  }

  private void answer(List<Waiting> batch, ReplicaFailure failure, HttpResponse<Buffer> response) {
    if (failure == null && response.statusCode() != 200) {
      failure = ofBatchStatus(response.statusCode());
    }
    Buffer payload = null;
    if (failure == null) {
      try {
        payload = Frame.decode(response.body() == null ? Buffer.buffer() : response.body(), Frame.Kind.ANSWERS).payload();
      } catch (IllegalArgumentException e) {
        failure = malformedAnswer(e);
      }
    }
    answer(batch, failure, payload);
  }

  private static ReplicaFailure malformedAnswer(IllegalArgumentException e) {
    return new ReplicaFailure(ReplicaFailure.Kind.FAILED, "malformed answer: " + e.getMessage());
  }

  /**
   * A batch the peer answered with another status than 200 took none of its operations, and says
   * nothing of them: a 401 or 403 during a secret rotation, a 413, 500 or 503 may all pass. So none is
   * {@link ReplicaFailure.Kind#REFUSED}, which would cost the write its hint; a 507 is a full disk.
   */
  static ReplicaFailure ofBatchStatus(int status) {
    return status == 507 ? new ReplicaFailure(ReplicaFailure.Kind.DISK_FULL, DiskFullException.MESSAGE)
        : new ReplicaFailure(ReplicaFailure.Kind.FAILED, "batch answered " + status);
  }

  /** Answers the batch's operations from its answers' payload, or fails them all. */
  private void answer(List<Waiting> batch, ReplicaFailure failure, Buffer payload) {
    List<Answer> answers = null;
    if (failure == null) {
      try {
        answers = BatchAnswers.decodePayload(payload);
        if (answers.size() != batch.size()) {
          failure = new ReplicaFailure(ReplicaFailure.Kind.FAILED,
              "answered " + answers.size() + " of " + batch.size() + " operations");
        }
      } catch (IllegalArgumentException e) {
        failure = malformedAnswer(e);
      }
    }
    for (int i = 0; i < batch.size(); i++) {
      PromiseInternal<Answer> promise = batch.get(i).answer();
      if (failure != null) {
        promise.tryFail(failure);
      } else if (answers.get(i).refused()) {
        promise.tryFail(new ReplicaFailure(ReplicaFailure.Kind.REFUSED, "refused: " + answers.get(i).failure()));
      } else if (answers.get(i).failure() != null) {
        promise.tryFail(DiskFullException.MESSAGE.equals(answers.get(i).failure())
            ? new ReplicaFailure(ReplicaFailure.Kind.DISK_FULL, DiskFullException.MESSAGE)
            : new ReplicaFailure(ReplicaFailure.Kind.FAILED, "failed: " + answers.get(i).failure()));
      } else {
        promise.tryComplete(answers.get(i));
      }
    }
  }

  private ReplicaFailure timedOut() {
    return new ReplicaFailure(ReplicaFailure.Kind.TIMEOUT, "timeout after " + timeoutMs + " ms");
  }

  /** Vert.x times out requests and Futures with a TimeoutException, Netty a connect with its own exception. */
  private ReplicaFailure failureOf(Throwable cause) {
    if (cause instanceof TimeoutException || cause instanceof ConnectTimeoutException) {
      return timedOut();
    }
    String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return new ReplicaFailure(ReplicaFailure.Kind.FAILED, "failed: " + message);
  }

  /** An operation waiting for a batch, and when it must have been answered. */
  private record Waiting(Operation operation, long deadlineNanos, PromiseInternal<Answer> answer) {
  }
}
