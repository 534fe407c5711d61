package io.quorumkv.support;

import io.quorumkv.Node;
import io.quorumkv.config.ConfigLoader;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.storage.Store;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.function.UnaryOperator;

/** A real node in this JVM, on a free port, with its data in a test directory. */
public final class TestNode implements AutoCloseable {
  private final Node node;
  public final Http http;

  private TestNode(Node node) {
    this.node = node;
    this.http = new Http("http://127.0.0.1:" + node.port());
  }

  /** Conf of a single node on port 0 in {@code dataDir}, plus {@code extra} keys. */
  public static NodeConfig config(Path dataDir, JsonObject extra) {
    JsonObject json = new JsonObject()
        .put("url", "http://127.0.0.1:0")
        .put("dataDir", dataDir.toString())
        .put("eventLoops", 2)
        .mergeIn(extra, true);
    return ConfigLoader.parse(json);
  }

  public static TestNode start(Path dataDir) {
    return start(config(dataDir, new JsonObject()), InstantSource.system());
  }

  public static TestNode start(NodeConfig config, InstantSource wallClock) {
    return new TestNode(Await.result(Node.start(config, wallClock, UnaryOperator.identity())));
  }

  /** A node whose store is wrapped by {@code storeLayer} (to count or fault its calls). */
  public static TestNode start(NodeConfig config, UnaryOperator<Store> storeLayer) {
    return new TestNode(Await.result(Node.start(config, InstantSource.system(), storeLayer)));
  }

  public Node node() {
    return node;
  }

  public int port() {
    return node.port();
  }

  @Override
  public void close() {
    Await.result(node.stop());
  }
}
