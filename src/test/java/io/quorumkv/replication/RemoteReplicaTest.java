package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.replication.RecordBatchCodec.Answer;
import io.quorumkv.replication.RecordBatchCodec.Operation;
import io.quorumkv.storage.Record;
import io.quorumkv.support.Await;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How {@link RemoteReplica} groups what it is asked into batches, against a peer that holds its answers. */
class RemoteReplicaTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final long TIMEOUT_MS = 10_000;

  private final Vertx vertx = Vertx.vertx();
  private final HeldPeer peer = new HeldPeer();
  private RemoteReplica replica;

  @BeforeEach
  void startPeer() throws Exception {
    HttpServer server = vertx.createHttpServer().requestHandler(peer::handle).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    WebClient client = WebClient.create(vertx, new WebClientOptions(),
        new PoolOptions().setHttp1MaxSize(RemoteReplica.MAX_IN_FLIGHT));
    replica = new RemoteReplica(vertx, new NodeUrl("127.0.0.1", server.actualPort()), client, TIMEOUT_MS, null);
  }

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void whatIsAskedWhileABatchIsInFlightLeavesTogetherWhenItReturns() throws Exception {
    List<Future<WriteAnswer>> first = write(0, 1);
    Await.until("the first write reaches the peer alone", WAIT, () -> peer.batchSizes().equals(List.of(1)));

    List<Future<WriteAnswer>> rest = write(1, 10);
    peer.release();

    assertAllStored(first);
    assertAllStored(rest);
    assertEquals(List.of(1, 10), peer.batchSizes(), "batches the peer received");
  }

  @Test
  void aFullBatchLeavesBesideTheOneInFlight() throws Exception {
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
  }

  @Test
  void anIdleReplicaGetsEachWriteAtOnceAlone() throws Exception {
    peer.release();
    for (int i = 0; i < 3; i++) {
      assertAllStored(write(i, 1));
    }
    assertEquals(List.of(1, 1, 1), peer.batchSizes(), "batches the peer received");
  }

  /** Asks for {@code count} writes from one event-loop task, as a coordinator does while serving requests. */
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

  /** A peer's batch endpoint that records each batch's size and holds its answers until released. */
  private static final class HeldPeer {
    private final List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
    private final List<Runnable> held = new ArrayList<>();
    private boolean released;

    void handle(HttpServerRequest request) {
      request.body().onSuccess(body -> {
        List<Operation> operations = RecordBatchCodec.decodeOperations(body);
        batchSizes.add(operations.size());
        Buffer answers = RecordBatchCodec.encodeAnswers(
            operations.stream().map(operation -> Answer.of(WriteAnswer.STORED)).toList());
        Runnable answer = () -> request.response().end(answers);
        synchronized (this) {
          if (!released) {
            held.add(answer);
            return;
          }
        }
        answer.run();
      });
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

    List<Integer> batchSizes() {
      synchronized (batchSizes) {
        return new ArrayList<>(batchSizes);
      }
    }
  }
}
