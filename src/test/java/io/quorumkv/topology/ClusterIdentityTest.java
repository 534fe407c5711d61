package io.quorumkv.topology;

import io.quorumkv.storage.MetaStore;
import io.quorumkv.support.Await;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Where a node's cluster id comes from: the board's when it has one, else the node's own kept one,
 * else a new one; whatever it is, kept in the node's meta. The nodes' data directories written
 * before ids existed are the ones with nothing kept.
 */
class ClusterIdentityTest {
  private final Vertx vertx = Vertx.vertx();
  private final IdBoard board = new IdBoard();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void theFirstNodeOfANewClusterMakesTheIdAndKeepsIt() throws Exception {
    MemoryMeta meta = new MemoryMeta();
    String id = establish(meta);
    assertNotNull(id);
    assertEquals(id, board.id, "put on the board");
    assertEquals(id, meta.kept());
  }

  @Test
  void aNodeWithDataFromBeforeIdsTakesItsClustersId() throws Exception {
    board.id = "running-cluster";
    MemoryMeta meta = new MemoryMeta();
    assertEquals("running-cluster", establish(meta));
    assertEquals("running-cluster", meta.kept());
  }

  @Test
  void aNodeRestartedAloneOnAnEmptyBoardPutsItsKeptIdBack() throws Exception {
    MemoryMeta meta = new MemoryMeta();
    meta.write(ClusterIdentity.META, "kept".getBytes(StandardCharsets.UTF_8));
    assertEquals("kept", establish(meta));
    assertEquals("kept", board.id);
  }

  @Test
  void aNodeWithAnotherClustersDataTakesTheBoardsId() throws Exception {
    board.id = "this-cluster";
    MemoryMeta meta = new MemoryMeta();
    meta.write(ClusterIdentity.META, "another-cluster".getBytes(StandardCharsets.UTF_8));
    assertEquals("this-cluster", establish(meta));
    assertEquals("this-cluster", meta.kept());
  }

  @Test
  void twoClustersMadeApartHaveTwoIds() throws Exception {
    String first = establish(new MemoryMeta());
    board.id = null;
    assertNotEquals(first, establish(new MemoryMeta()));
  }

  @Test
  void eachTickLevelsTheNodeWithTheBoard() throws Exception {
    MemoryMeta meta = new MemoryMeta();
    ClusterIdentity identity = new ClusterIdentity(vertx, board::claim, meta);
    String made = identity.establish().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    board.id = null;
    identity.reconcile();
    Await.until("the id put back on a board that lost it", Duration.ofSeconds(10), () -> made.equals(board.id));
    board.id = "the other side of a merge";
    Await.until("the board's id taken", Duration.ofSeconds(10), () -> {
      identity.reconcile();
      return board.id.equals(identity.id()) && board.id.equals(meta.kept());
    });
  }

  private String establish(MetaStore meta) throws Exception {
    ClusterIdentity identity = new ClusterIdentity(vertx, board::claim, meta);
    String id = identity.establish().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(id, identity.id());
    return id;
  }

  /** The board's side of the claim: the first id claimed stays. */
  private static final class IdBoard {
    private volatile String id;

    synchronized Future<String> claim(String candidate) {
      if (id == null) {
        id = candidate;
      }
      return Future.succeededFuture(id);
    }
  }

  private static final class MemoryMeta implements MetaStore {
    private final Map<String, byte[]> values = new ConcurrentHashMap<>();

    String kept() {
      byte[] id = read(ClusterIdentity.META);
      return id == null ? null : new String(id, StandardCharsets.UTF_8);
    }

    @Override
    public long readLong(String name, long absent) {
      return absent;
    }

    @Override
    public void writeLong(String name, long value) {
    }

    @Override
    public byte[] read(String name) {
      return values.get(name);
    }

    @Override
    public void write(String name, byte[] value) {
      values.put(name, value);
    }
  }
}
