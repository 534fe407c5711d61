package io.quorumkv.peer;

import io.quorumkv.config.NodeUrl;
import io.vertx.ext.web.client.WebClientOptions;

/** How {@link PeerClient} connects to other nodes, whatever it carries. */
final class PeerClientOptions {
  private PeerClientOptions() {
  }

  /**
   * Keep-alive connections without Nagle's delay, opened from the node's own address so traffic
   * between two nodes on one host tells who sent it, failing to connect after {@code connectTimeoutMs}.
   */
  static WebClientOptions from(NodeUrl self, long connectTimeoutMs) {
    return new WebClientOptions().setKeepAlive(true).setTcpNoDelay(true)
        .setConnectTimeout((int) Math.min(connectTimeoutMs, Integer.MAX_VALUE)).setUserAgentEnabled(false)
        .setLocalAddress(self.host());
  }
}
