package io.quorumkv.replication;

import io.quorumkv.config.ConfigLoader;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.replication.BatchAnswers.Answer;
import io.quorumkv.storage.Record;
import io.quorumkv.support.Await;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.BatchOperations.Operation;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.FrameReader;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link RemoteReplica} groups what it is asked into batches, against a peer that holds its
 * answers: one that serves batch streams, and one that does not (an older version), where batches
 * go as {@code POST}s; and how a stream fails its batches.
 */
class RemoteReplicaTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final long TIMEOUT_MS = 10_000;

  private final Vertx vertx = Vertx.vertx();
  private HeldPeer peer;
  private RemoteReplica replica;

  private void startPeer(Transport transport) throws Exception {
    startPeer(transport, TIMEOUT_MS, TIMEOUT_MS);
  }

  private void startPeer(Transport transport, long timeoutMs, long upgradeTimeoutMs) throws Exception {
    startPeer(transport, timeoutMs, upgradeTimeoutMs, BatchStream.KEEP_ALIVE_MS, new HttpServerOptions());
  }

  private void startPeer(Transport transport, long timeoutMs, long upgradeTimeoutMs, long keepAliveMs,
                         HttpServerOptions serverOptions) throws Exception {
    peer = new HeldPeer(transport);
    HttpServer server = vertx.createHttpServer(serverOptions).requestHandler(peer::handle).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    PeerClient http = new PeerClient(vertx,
        ConfigLoader.parse(new JsonObject().put("url", "http://127.0.0.1:0").put("replicaTimeoutMs", timeoutMs)),
        InternalEndpoint.Timeout.REPLICA, new PoolOptions().setHttp1MaxSize(RemoteReplica.MAX_IN_FLIGHT));
    NodeUrl node = new NodeUrl("127.0.0.1", server.actualPort());
    CompletableFuture<RemoteReplica> made = new CompletableFuture<>();
    // As ReplicaDirectory does: made on the event loop that uses it.
    vertx.runOnContext(ignored -> made.complete(new RemoteReplica(vertx, node, http,
        new BatchStream((ContextInternal) vertx.getOrCreateContext(), http, node, 1 << 20, upgradeTimeoutMs,
            keepAliveMs, StreamObserver.NONE))));
    replica = made.get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @EnumSource(value = Transport.class, names = {"STREAM", "POST_ONLY"})
  void whatIsAskedWhileABatchIsInFlightLeavesTogetherWhenItReturns(Transport transport) throws Exception {
    startPeer(transport);
    List<Future<WriteAnswer>> first = write(0, 1);
    Await.until("the first write reaches the peer alone", WAIT, () -> peer.batchSizes().equals(List.of(1)));

    List<Future<WriteAnswer>> rest = write(1, 10);
    peer.release();

    assertAllStored(first);
    assertAllStored(rest);
    assertEquals(List.of(1, 10), peer.batchSizes(), "batches the peer received");
    assertEquals(transport.carrier(), peer.carriers(), "how the batches came");
  }

  @Test
  void readsOfOneKeyThatLeaveTogetherAreOneRead() throws Exception {
    startPeer(Transport.STREAM);
    List<Future<WriteAnswer>> first = write(0, 1);
    Await.until("the first write reaches the peer alone", WAIT, () -> peer.batchSizes().equals(List.of(1)));

    CompletableFuture<List<Future<Record>>> asked = new CompletableFuture<>();
    vertx.runOnContext(ignored -> {
      List<Future<Record>> reads = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        reads.add(replica.read("hot".getBytes(StandardCharsets.UTF_8)));
      }
      reads.add(replica.read("other".getBytes(StandardCharsets.UTF_8)));
      // A digest read never shares a read's answer (it may leave the value out), only another digest read's.
      reads.add(replica.readDigest("hot".getBytes(StandardCharsets.UTF_8)));
      reads.add(replica.readDigest("hot".getBytes(StandardCharsets.UTF_8)));
      asked.complete(reads);
    });
    List<Future<Record>> reads = asked.get(10, TimeUnit.SECONDS);
    peer.release();

    assertAllStored(first);
    for (Future<Record> read : reads) {
      read.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    assertEquals(List.of(1, 3), peer.batchSizes(),
        "five reads of one key, one of another and two digest reads of the first went as three operations");
  }

  @ParameterizedTest
  @EnumSource(value = Transport.class, names = {"STREAM", "POST_ONLY"})
  void aFullBatchLeavesBesideTheOneInFlight(Transport transport) throws Exception {
    startPeer(transport);
    List<Future<WriteAnswer>> first = write(0, 1);
    Await.until("the first write reaches the peer alone", WAIT, () -> peer.batchSizes().equals(List.of(1)));

    int full = RemoteReplica.MAX_BATCH_OPERATIONS;
    List<Future<WriteAnswer>> rest = write(1, full + 5);
    Await.until("a full batch reaches the peer while the first is held", WAIT,
        () -> peer.batchSizes().equals(List.of(1, full)));
    peer.release();

    assertAllStored(first);
    assertAllStored(rest);
    assertEquals(List.of(1, full, 5), peer.batchSizes(), "batches the peer received");
    assertEquals(transport.carrier(), peer.carriers(), "how the batches came");
  }

  @ParameterizedTest
  @EnumSource(value = Transport.class, names = {"STREAM", "POST_ONLY"})
  void anIdleReplicaGetsEachWriteAtOnceAlone(Transport transport) throws Exception {
    startPeer(transport);
    peer.release();
    for (int i = 0; i < 3; i++) {
      assertAllStored(write(i, 1));
    }
    assertEquals(List.of(1, 1, 1), peer.batchSizes(), "batches the peer received");
    assertEquals(transport.carrier(), peer.carriers(), "how the batches came");
  }

  @ParameterizedTest
  @EnumSource(value = Transport.class, names = {"STREAM", "POST_ONLY"})
  void connectingAheadOpensTheStreamOnceOrLearnsThePeerServesNone(Transport transport) throws Exception {
    startPeer(transport);
    peer.release();
    connectAhead();
    connectAhead();
    assertEquals(1, peer.upgradeRequests(), "upgrades asked for by two connections ahead");

    assertAllStored(write(0, 1));
    assertEquals(1, peer.upgradeRequests(), "upgrades asked for once the first batch went too");
    assertEquals(transport.carrier(), peer.carriers(), "how the batch came");
  }

  /** A node of a release without digest reads never gets one: it would refuse the whole batch. */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void aDigestReadGoesAsOneOnlyOnAStreamWhosePeerSaidItTakesThem(Transport transport) throws Exception {
    startPeer(transport);
    peer.release();
    connectAhead();
    CompletableFuture<Future<Record>> asked = new CompletableFuture<>();
    vertx.runOnContext(ignored -> asked.complete(replica.readDigest("compared".getBytes(StandardCharsets.UTF_8))));
    asked.get(10, TimeUnit.SECONDS).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertEquals(List.of(transport == Transport.STREAM_WITH_DIGESTS ? "digest" : "read"), peer.readKinds());
  }

  @Test
  void anIdleStreamOutlivesThePeersIdleTimeout() throws Exception {
    long peerIdleTimeoutMs = 600;
    startPeer(Transport.STREAM, TIMEOUT_MS, TIMEOUT_MS, peerIdleTimeoutMs / 3,
        new HttpServerOptions().setIdleTimeout((int) peerIdleTimeoutMs).setIdleTimeoutUnit(TimeUnit.MILLISECONDS));
    peer.release();
    connectAhead();
    Await.until("empty batches keep the stream busy for five of the peer's idle timeouts", WAIT,
        () -> peer.batchSizes().stream().filter(size -> size == 0).count() >= 15);

    assertAllStored(write(0, 1));
    assertEquals(1, peer.upgradeRequests(), "upgrades asked for: the stream opened ahead was never closed");
    assertEquals(1, peer.batchSizes().stream().filter(size -> size > 0).count(), "batches of writes");
  }

  private void connectAhead() throws Exception {
    CompletableFuture<Void> connected = new CompletableFuture<>();
    vertx.runOnContext(ignored -> replica.connectAhead().onComplete(done -> {
      if (done.succeeded()) {
        connected.complete(null);
      } else {
        connected.completeExceptionally(done.cause());
      }
    }));
    connected.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aStreamBatchWithoutAnAnswerTimesOut() throws Exception {
    startPeer(Transport.STREAM, 300, 300);
    long start = System.nanoTime();
    Throwable failure = failureOf(write(0, 1).get(0));
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertEquals(ReplicaFailure.Kind.TIMEOUT, ReplicaFailure.kindOf(failure), failure.toString());
    assertTrue(tookMs >= 250 && tookMs < 5_000, "failed after " + tookMs + " ms");
  }

  @Test
  void aStreamClosedUnderABatchFailsItAtOnceAndTheNextBatchConnectsAnew() throws Exception {
    startPeer(Transport.STREAM);
    List<Future<WriteAnswer>> first = write(0, 1);
    Await.until("the first write reaches the peer", WAIT, () -> peer.batchSizes().equals(List.of(1)));
    peer.closeStreams();
    Throwable failure = failureOf(first.get(0));
    assertEquals(ReplicaFailure.Kind.FAILED, ReplicaFailure.kindOf(failure), failure.toString());
    assertTrue(failure.getMessage().contains("connection closed"), failure.getMessage());

    peer.release();
    assertAllStored(write(1, 1));
    assertEquals(2, peer.upgrades(), "connections upgraded to a stream");
  }

  @Test
  void anUpgradeLeftUnansweredHoldsUpNoLaterBatch() throws Exception {
    startPeer(Transport.STREAM, 300, 100);
    peer.release();
    peer.leaveUpgradesUnanswered(1);
    Throwable failure = failureOf(write(0, 1).get(0));
    assertEquals(ReplicaFailure.Kind.TIMEOUT, ReplicaFailure.kindOf(failure), failure.toString());

    assertAllStored(write(1, 1));
    assertEquals(List.of(1), peer.batchSizes(), "batches the peer received");
  }

  private static Throwable failureOf(Future<?> answer) throws Exception {
    try {
      answer.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("succeeded: " + answer.result());
  }

  /** Asks for {@code count} writes from one event-loop task, as a coordinator does while serving requests. */
  /**
   * A peer that answers a batch {@code POST} with a status other than 200 (one refusing batch streams,
   * during a secret rotation, say) took nothing, and may take the writes later: the failure is never
   * REFUSED, which would leave the write without a hint and make a replayed hint be dropped.
   */
  @ParameterizedTest
  @ValueSource(ints = {400, 401, 403, 404, 413, 500, 503, 507})
  void aBatchAnsweredWithAnotherStatusFailsItsWritesAsWorthAHint(int status) throws Exception {
    startPeer(Transport.POST_ONLY);
    peer.release();
    peer.answerBatchesWith(status);
    List<Future<WriteAnswer>> writes = write(0, 3);
    for (Future<WriteAnswer> written : writes) {
      ExecutionException failed = assertThrows(ExecutionException.class,
          () -> written.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
      assertEquals(status == 507 ? ReplicaFailure.Kind.DISK_FULL : ReplicaFailure.Kind.FAILED,
          ReplicaFailure.kindOf(failed.getCause()), failed.getCause().getMessage());
    }
  }

  private List<Future<WriteAnswer>> write(int firstKey, int count) throws Exception {
    CompletableFuture<List<Future<WriteAnswer>>> asked = new CompletableFuture<>();
    vertx.runOnContext(ignored -> {
      List<Future<WriteAnswer>> answers = new ArrayList<>();
      for (int i = firstKey; i < firstKey + count; i++) {
        answers.add(replica.write(("key-" + i).getBytes(StandardCharsets.UTF_8),
            Record.live(i + 1, "value".getBytes(StandardCharsets.UTF_8), 0)));
      }
      asked.complete(answers);
    });
    return asked.get(10, TimeUnit.SECONDS);
  }

  private static void assertAllStored(List<Future<WriteAnswer>> answers) throws Exception {
    for (Future<WriteAnswer> answer : answers) {
      assertTrue(answer.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).stored());
    }
  }

  /** How a peer takes batches: on an upgraded stream, or only as {@code POST}s (it answers the upgrade 404). */
  enum Transport {
    STREAM("stream"), POST_ONLY("post"), STREAM_WITH_DIGESTS("stream");

    private final String carrier;

    Transport(String carrier) {
      this.carrier = carrier;
    }

    List<String> carrier() {
      return List.of(carrier);
    }
  }

  /** A peer's batch endpoints that record each batch's size and carrier and hold its answers until released. */
  private static final class HeldPeer {
    private final Transport transport;
    private final List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
    private final List<String> readKinds = Collections.synchronizedList(new ArrayList<>());
    private final Set<String> carriers = Collections.synchronizedSet(new TreeSet<>());
    private final List<NetSocket> streams = Collections.synchronizedList(new ArrayList<>());
    private final List<Runnable> held = new ArrayList<>();
    private boolean released;
    private int upgradesLeftUnanswered;
    private volatile int batchStatus = 200;
    private final AtomicInteger upgradeRequests = new AtomicInteger();

    HeldPeer(Transport transport) {
      this.transport = transport;
    }

    void handle(HttpServerRequest request) {
      if (request.path().equals(InternalEndpoint.RECORD_STREAM.path())) {
        upgradeRequests.incrementAndGet();
        if (transport == Transport.POST_ONLY) {
          request.response().setStatusCode(404).end();
          return;
        }
        synchronized (this) {
          if (upgradesLeftUnanswered > 0) {
            upgradesLeftUnanswered--;
            return;
          }
        }
        if (transport == Transport.STREAM_WITH_DIGESTS) {
          request.response().putHeader(InternalProtocol.DIGESTS_HEADER, "1");
        }
        request.toNetSocket().onSuccess(socket -> {
          streams.add(socket);
          socket.handler(FrameReader.of(1 << 24, frame -> take(BatchOperations.decodePayload(frame.payload(), 64),
              "stream", answers -> Frame.write(socket, Frame.Kind.ANSWERS, frame.id(), BatchAnswers.payloadInParts(answers))),
              malformed -> socket.close()));
        });
        return;
      }
      if (batchStatus != 200) {
        request.body().onSuccess(body -> request.response().setStatusCode(batchStatus).end("no"));
        return;
      }
      request.body().onSuccess(body -> take(BatchOperations.decode(body), "post",
          answers -> request.response().end(BatchAnswers.encode(answers))));
    }

    /** Every batch POST from now on answered with this status, its operations untaken. */
    void answerBatchesWith(int status) {
      batchStatus = status;
    }

    private void take(List<Operation> operations, String carrier, Consumer<List<Answer>> reply) {
      batchSizes.add(operations.size());
      operations.stream().filter(Operation::isRead).forEach(read -> readKinds.add(read.digest() ? "digest" : "read"));
      carriers.add(carrier);
      List<Answer> answers = operations.stream().map(operation -> Answer.of(WriteAnswer.STORED)).toList();
      Runnable answer = () -> reply.accept(answers);
      synchronized (this) {
        if (!released) {
          held.add(answer);
          return;
        }
      }
      answer.run();
    }

    synchronized void leaveUpgradesUnanswered(int count) {
      upgradesLeftUnanswered = count;
    }

    void closeStreams() {
      synchronized (this) {
        held.clear();
      }
      List.copyOf(streams).forEach(NetSocket::close);
    }

    int upgrades() {
      return streams.size();
    }

    /** Requests for a stream, answered 101 or not. */
    int upgradeRequests() {
      return upgradeRequests.get();
    }

    List<String> carriers() {
      synchronized (carriers) {
        return new ArrayList<>(carriers);
      }
    }

    void release() {
      List<Runnable> answers;
      synchronized (this) {
        released = true;
        answers = new ArrayList<>(held);
        held.clear();
      }
      answers.forEach(Runnable::run);
    }

    List<String> readKinds() {
      synchronized (readKinds) {
        return new ArrayList<>(readKinds);
      }
    }

    List<Integer> batchSizes() {
      synchronized (batchSizes) {
        return new ArrayList<>(batchSizes);
      }
    }
  }
}
