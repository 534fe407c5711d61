package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;

/** Told when a batch stream to a peer opens or closes, for metrics. Called on the stream's event loop. */
public interface StreamObserver {
  StreamObserver NONE = new StreamObserver() {
    @Override
    public void batchStreamOpened(NodeUrl peer) {
    }

    @Override
    public void batchStreamClosed(NodeUrl peer) {
    }
  };

  void batchStreamOpened(NodeUrl peer);

  void batchStreamClosed(NodeUrl peer);
}
