package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.web.ConnectionErrors;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.FrameReader;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.net.NetSocket;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One connection to a peer, upgraded from HTTP to a stream of {@link Frame}s: several
 * batches in flight on it, each answered by its id. It connects when {@link #open} asks or on
 * first use, and again after it closed. A stream idle for its keep-alive interval sends an empty
 * batch, so that neither side's idle timeout closes it and the next request finds it open. All its
 * state lives on one context.
 */
final class BatchStream {
  /** Well under the HTTP server's default idle timeout (120 s), which also applies to upgraded connections. */
  static final long KEEP_ALIVE_MS = 30_000;

  /** The peer answered the upgrade with another status than 101: it does not serve batch streams. */
  static final class UpgradeRefusedException extends RuntimeException {
    UpgradeRefusedException(int status) {
      super("batch stream refused with " + status);
    }
  }

  private final ContextInternal context;
  private final PeerClient client;
  private final NodeUrl node;
  private final int maxAnswerBytes;
  private final long upgradeTimeoutMs;
  private final long keepAliveMs;
  private final Map<Long, Exchange> inFlight = new HashMap<>();
  private final StreamObserver observer;
  private Future<NetSocket> connection;
  private long nextId;
  private long lastUsedNanos;
  /** Whether the peer said, on the open stream's upgrade, that it takes digest reads; not while one opens. */
  private volatile boolean peerTakesDigests;

  /**
   * @param maxValueBytes    the largest value a read may answer with (the peers' body limit)
   * @param upgradeTimeoutMs how long connecting and the upgrade may take before the next batch tries again
   * @param keepAliveMs      how long the stream may stay idle before it sends an empty batch
   * @param observer         told when the connection opens and closes
   */
  BatchStream(ContextInternal context, PeerClient client, NodeUrl node, long maxValueBytes, long upgradeTimeoutMs,
              long keepAliveMs, StreamObserver observer) {
    this.context = context;
    this.keepAliveMs = keepAliveMs;
    this.observer = observer;
    this.upgradeTimeoutMs = upgradeTimeoutMs;
    this.client = client;
    this.node = node;
    long answerBytes = InternalProtocol.MAX_BATCH_OPERATIONS
        * (maxValueBytes + BatchAnswers.MAX_ANSWER_OVERHEAD_BYTES);
    this.maxAnswerBytes = (int) Math.min(answerBytes, Integer.MAX_VALUE - 64);
  }

  /**
   * Sends a batch's encoded operations (a frame's payload in parts, see {@link BatchOperations#payloadInParts})
   * and completes with the encoded answers (their frame's payload); fails after
   * {@code timeoutMs} (a {@link TimeoutException}), when the connection closes first, or with
   * {@link UpgradeRefusedException}. Completes on this stream's context.
   */
  Future<Buffer> exchange(List<Buffer> operations, long timeoutMs) {
    Promise<Buffer> answer = context.promise();
    onContext(() -> start(operations, timeoutMs, answer));
    return answer.future();
  }

  /**
   * Connects now, unless connected or connecting, so that the next batch need not wait for the
   * connection and the upgrade. Completes on this stream's context, failed as {@link #exchange} would.
   */
  Future<Void> open() {
    Promise<Void> opened = context.promise();
    onContext(() -> connection().<Void>mapEmpty().onComplete(opened));
    return opened.future();
  }

  private void onContext(Runnable task) {
    if (context.isRunningOnContext()) {
      task.run();
    } else {
      context.runOnContext(ignored -> task.run());
    }
  }

  private void start(List<Buffer> operations, long timeoutMs, Promise<Buffer> answer) {
    long id = nextId++;
    lastUsedNanos = System.nanoTime();
    Exchange exchange = new Exchange(answer, context.setTimer(timeoutMs, fired -> {
      Exchange late = inFlight.remove(id);
      if (late != null) {
        late.answer.tryFail(new TimeoutException("no answer after " + timeoutMs + " ms"));
      }
    }));
    inFlight.put(id, exchange);
    connection().onComplete(connected -> {
      if (connected.failed()) {
        finish(id, null, connected.cause());
      } else if (inFlight.containsKey(id)) {
        exchange.socket = connected.result();
        Frame.write(exchange.socket, Frame.Kind.OPERATIONS, id, operations);
      }
    });
  }

  private void finish(long id, Buffer answers, Throwable failure) {
    Exchange exchange = inFlight.remove(id);
    if (exchange == null) {
      return;
    }
    context.owner().cancelTimer(exchange.timer);
    if (failure == null) {
      exchange.answer.tryComplete(answers);
    } else {
      exchange.answer.tryFail(failure);
    }
  }

  private Future<NetSocket> connection() {
    if (connection == null) {
      Future<NetSocket> connecting = connect();
      connection = connecting;
      connecting.onFailure(failed -> {
        if (connection == connecting) {
          connection = null;
        }
      });
    }
    return connection;
  }

  /** Whether the peer takes digest reads, as its last stream's upgrade said ({@link InternalProtocol#DIGESTS_HEADER}). */
  boolean peerTakesDigests() {
    return peerTakesDigests;
  }

  private Future<NetSocket> connect() {
    peerTakesDigests = false;
    RequestOptions upgrade = client.options(InternalEndpoint.RECORD_STREAM, node, null)
        .putHeader(HttpHeaders.CONNECTION, HttpHeaders.UPGRADE)
        .putHeader(HttpHeaders.UPGRADE, InternalProtocol.STREAM_UPGRADE);
    // The request's failures reach connect()'s Future; without a handler Vert.x would also log them as SEVERE.
    Future<NetSocket> upgrading = client.request(upgrade)
        .compose(request -> request.exceptionHandler(failedToo -> { }).connect()).compose(response -> {
      if (response.statusCode() != 101) {
        return Future.failedFuture(new UpgradeRefusedException(response.statusCode()));
      }
      peerTakesDigests = "1".equals(response.getHeader(InternalProtocol.DIGESTS_HEADER));
      NetSocket socket = response.netSocket();
      socket.exceptionHandler(ConnectionErrors.logged("batch stream to " + node));
      lastUsedNanos = System.nanoTime();
      observer.batchStreamOpened(node);
      socket.handler(FrameReader.of(maxAnswerBytes, frame -> {
        if (frame.kind() == Frame.Kind.ANSWERS) {
          finish(frame.id(), frame.payload(), null);
        } else {
          failOn(socket, "frame of kind " + frame.kind() + ", expected ANSWERS");
        }
      }, malformed -> failOn(socket, "malformed answer frame: " + malformed)));
      // A lost answer needs no handling: the batch's timer forgets it, and a dead connection closes on its own.
      long idleCheck = context.setPeriodic(Math.max(1, keepAliveMs / 2), tick -> {
        if (inFlight.isEmpty() && System.nanoTime() - lastUsedNanos > keepAliveMs * 1_000_000) {
          start(List.of(), upgradeTimeoutMs, context.promise());
        }
      });
      socket.closeHandler(closed -> {
        observer.batchStreamClosed(node);
        context.owner().cancelTimer(idleCheck);
        retire(socket);
        failOn(socket, "connection closed");
      });
      return Future.succeededFuture(socket);
    });
    // A peer that took the connection but never answers (stopped, cut off) must not hold every later batch.
    Future<NetSocket> bounded = upgrading.timeout(upgradeTimeoutMs, TimeUnit.MILLISECONDS);
    bounded.onFailure(late -> upgrading.onSuccess(NetSocket::close));
    return bounded;
  }

  /** Fails the batches sent on the socket with {@code why}, and closes it: nothing after a wrong frame is trusted. */
  private void failOn(NetSocket socket, String why) {
    inFlight.entrySet().stream().filter(entry -> entry.getValue().socket == socket).map(Map.Entry::getKey)
        .toList().forEach(id -> finish(id, null, new IllegalStateException(why)));
    socket.close();
  }

  /** Takes the socket out of use (the next batch connects anew) and closes it. */
  private void retire(NetSocket socket) {
    if (connection != null && connection.succeeded() && connection.result() == socket) {
      connection = null;
    }
    socket.close();
  }

  /** A batch waiting for its answer, and the socket it went out on (null until it did). */
  private static final class Exchange {
    private final Promise<Buffer> answer;
    private final long timer;
    private NetSocket socket;

    Exchange(Promise<Buffer> answer, long timer) {
      this.answer = answer;
      this.timer = timer;
    }
  }
}
