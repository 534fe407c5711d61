package io.quorumkv.cluster;

import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.TestCluster;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;

import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Nodes listen on their conf's host only: the HTTP and Hazelcast ports of a node whose url is
 * 127.0.0.1 take connections there and refuse them on 127.0.0.2, another address of the same
 * loopback interface, as they would on any other interface of the machine.
 */
class BindingTest {
  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = clusters.startInJvm(2, new JsonObject());
  }

  @Test
  void httpAndHazelcastPortsListenOnTheConfiguredHostOnly() throws IOException {
    for (int node = 0; node < cluster.size(); node++) {
      int httpPort = cluster.url(node).port();
      int hazelcastPort = cluster.config(node).hazelcast().port();
      for (int port : new int[] {httpPort, hazelcastPort}) {
        connect("127.0.0.1", port).close();
        assertThrows(ConnectException.class, () -> connect("127.0.0.2", port), (port == httpPort ? "HTTP" : "Hazelcast") + " port " + port + " on 127.0.0.2");
      }
    }
  }

  private static Socket connect(String host, int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(host, port), 2_000);
    return socket;
  }
}
