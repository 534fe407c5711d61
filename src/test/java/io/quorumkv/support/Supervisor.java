package io.quorumkv.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts nodes of a {@link ProcessCluster} and, when one exits before serving, starts it again, as
 * a supervisor would (systemd's {@code Restart=on-failure}), at most {@link #START_ATTEMPTS} times
 * in a row. Each such exit is recorded for the report. A node that starts while the others merge
 * after a partition is refused by Hazelcast ("Cluster state either is locked or doesn't allow new
 * members to join -> ClusterState{state=FROZEN, ...}"); it used to exit with "cannot join the
 * cluster", and now tries again by itself, so an exit after such a refusal is recorded apart, as
 * a finding ({@link #frozenExits}).
 */
final class Supervisor {
  /** Starts of one node in a row that may exit before serving, like a supervisor's restart limit. */
  private static final int START_ATTEMPTS = 3;
  /** What a refused member logs when Hazelcast refuses it for the cluster state (FROZEN, PASSIVE). */
  private static final String STATE_REFUSAL = "doesn't allow new members to join";

  private final ProcessCluster cluster;
  private final StepLog log;
  private final List<String> failedStarts = new ArrayList<>();
  private final List<String> frozenExits = new ArrayList<>();

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
        if (cluster.currentLog(node).contains(STATE_REFUSAL)) {
          frozenExits.add("node " + node + ": " + cause);
        }
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

  /** The {@link #failedStarts} of nodes that Hazelcast had refused for its cluster state. */
  List<String> frozenExits() {
    return List.copyOf(frozenExits);
  }
}
