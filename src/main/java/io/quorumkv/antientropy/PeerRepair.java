package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;

/**
 * How a repair's exchange with one peer ended ({@link AntiEntropy#repairNow}).
 *
 * @param result its figures; null when it failed
 * @param error  why it failed; null when every difference was repaired
 */
public record PeerRepair(NodeUrl peer, ExchangeResult result, long tookMs, String error) {
  static PeerRepair repaired(NodeUrl peer, ExchangeResult result, long tookMs) {
    return new PeerRepair(peer, result, tookMs, null);
  }

  static PeerRepair failed(NodeUrl peer, long tookMs, String error) {
    return new PeerRepair(peer, null, tookMs, error);
  }

  public boolean succeeded() {
    return error == null;
  }
}
