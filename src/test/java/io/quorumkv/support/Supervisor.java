package io.quorumkv.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts nodes of a {@link ProcessCluster} and, when one exits before serving, starts it again, as
 * a supervisor would (systemd's {@code Restart=on-failure}), at most {@link #START_ATTEMPTS} times
 * in a row: a node that starts while the others merge after a partition is refused by Hazelcast
 * ("Cluster state either is locked or doesn't allow new members to join -> FROZEN") and exits
 * with "cannot join the cluster". Each such exit is recorded for the report.
 */
final class Supervisor {
  /** Starts of one node in a row that may exit before serving, like a supervisor's restart limit. */
  private static final int START_ATTEMPTS = 3;

  private final ProcessCluster cluster;
  private final StepLog log;
  private final List<String> failedStarts = new ArrayList<>();

  Supervisor(ProcessCluster cluster, StepLog log) {
    this.cluster = cluster;
    this.log = log;
  }

  /** Starts the stopped node again with its conf and data, and waits until it serves. */
  void startAgain(int node) throws IOException {
    serve(node, false);
  }

  /** Waits until a node just launched ({@link ProcessCluster#launchNewNode}) serves. */
  void awaitServing(int node) throws IOException {
    serve(node, true);
  }

  private void serve(int node, boolean launched) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        if (launched && attempt == 1) {
          cluster.awaitServing(node);
        } else {
          cluster.startAgain(node);
        }
        return;
      } catch (AssertionError exited) {
        if (cluster.running(node) || attempt == START_ATTEMPTS) {
          throw exited;
        }
        String cause = exitCause(node);
        failedStarts.add("node " + node + ": " + cause);
        log.say("node %d exited while starting (%s), starting it again", node, cause);
      }
    }
  }

  /** The node's own last words in its latest run ("quorumkv: ..."), or the last line of its log. */
  String exitCause(int node) {
    String[] lines = cluster.currentLog(node).strip().split("\n");
    for (int i = lines.length - 1; i >= 0; i--) {
      if (lines[i].startsWith("quorumkv: ")) {
        return lines[i].substring("quorumkv: ".length());
      }
    }
    return lines[lines.length - 1];
  }

  /** The starts that exited before serving and were started again, with their causes. */
  List<String> failedStarts() {
    return List.copyOf(failedStarts);
  }
}
