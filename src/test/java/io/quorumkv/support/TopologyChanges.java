package io.quorumkv.support;

import io.quorumkv.support.Nemesis.Fault;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The nemesis's topology changes (docs/operations.md): a new node {@link Fault#JOIN joins} (fresh
 * data directory, its own address and clock when the cluster has them), a member
 * {@link Fault#LEAVE leaves} ({@code POST /admin/cluster/leave}: it hands its records over and its
 * process exits 0 by itself), or a member is killed and {@link Fault#REMOVE removed}
 * ({@code POST /admin/cluster/remove} through another member). As the product requires, one change
 * at a time, each begun only once every member runs, sees every member alive and says the topology
 * is {@code stable}; the nemesis goes on with its faults while the change streams. Members stay
 * between 3 and 5: a join below 4, else a leave or a removal (each once in turn, in an order drawn
 * from the seed), so the size goes 3, 4, 3, ... A node that left or was removed is
 * {@link ProcessCluster#retire retired} and no longer written through ({@link WriteTargets}).
 *
 * <p>How long each change takes until every member says {@code stable} is watched from a thread of
 * its own, which asks the members' {@code GET /v0/cluster} by url every {@link #POLL_MS} ms.
 */
final class TopologyChanges implements AutoCloseable {
  private static final int MIN_MEMBERS = 3;
  private static final int MAX_MEMBERS = 5;
  /** How long the previous change (through the faults of the steps since) may take until a new one can begin. */
  private static final Duration READY_WITHIN = Duration.ofSeconds(120);
  /** How long a leave or removal is asked again while it is refused with a 409 (a node not yet seen alive or down). */
  private static final Duration ACCEPTED_WITHIN = Duration.ofSeconds(60);
  private static final Duration LEAVER_EXITS_WITHIN = Duration.ofSeconds(60);
  private static final long POLL_MS = 250;

  /** One change: what, to which node, when it began and when every member first said {@code stable} after it. */
  static final class Change {
    final Fault kind;
    final int node;
    final long startNanos;
    private final String how;
    private volatile long stableNanos;
    private volatile String exit = "";
    private boolean exitChecked;

    private Change(Fault kind, int node, long startNanos, String how) {
      this.kind = kind;
      this.node = node;
      this.startNanos = startNanos;
      this.how = how;
    }

    boolean stable() {
      return stableNanos != 0;
    }

    @Override
    public String toString() {
      String took = stable() ? String.format(Locale.ROOT, "stable after %.1f s", (stableNanos - startNanos) / 1e9)
          : "never seen stable";
      return String.format(Locale.ROOT, "%s node %d (%s): %s%s", kind, node, how, took, exit);
    }
  }

  private final ProcessCluster cluster;
  private final WriteTargets targets;
  private final Supervisor supervisor;
  private final StepLog log;
  private final Set<Fault> kinds;
  /** The shrinking kinds still to deal in this round; refilled and shuffled when empty. */
  private final List<Fault> shrinks = new ArrayList<>();
  private final List<Change> changes = new ArrayList<>();
  private final List<String> notMade = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();
  private final ExecutorService watcher = Executors.newSingleThreadExecutor(task -> {
    Thread thread = new Thread(task, "topology-change-watcher");
    thread.setDaemon(true);
    return thread;
  });
  private volatile boolean closed;
  private boolean lastNotMade;
  private boolean settled = true;

  TopologyChanges(ProcessCluster cluster, WriteTargets targets, Supervisor supervisor, StepLog log, Set<Fault> kinds) {
    if ((kinds.contains(Fault.LEAVE) || kinds.contains(Fault.REMOVE)) && !kinds.contains(Fault.JOIN)) {
      throw new IllegalArgumentException("LEAVE and REMOVE need JOIN among the faults: the cluster starts with "
          + MIN_MEMBERS + " nodes and may not shrink below");
    }
    this.cluster = cluster;
    this.targets = targets;
    this.supervisor = supervisor;
    this.log = log;
    this.kinds = Set.copyOf(kinds);
  }

  /**
   * The change to make with {@code members} members, null when none fits: a removal or a leave
   * from 4 members on, else a join up to 5; draws from {@code random} only to shuffle the shrinking kinds.
   */
  Fault next(int members, Random random) {
    boolean mayShrink = members > MIN_MEMBERS && (kinds.contains(Fault.LEAVE) || kinds.contains(Fault.REMOVE));
    if (mayShrink) {
      if (shrinks.isEmpty()) {
        kinds.stream().filter(kind -> kind == Fault.LEAVE || kind == Fault.REMOVE).sorted().forEach(shrinks::add);
        Collections.shuffle(shrinks, random);
      }
      return shrinks.remove(shrinks.size() - 1);
    }
    return members < MAX_MEMBERS && kinds.contains(Fault.JOIN) ? Fault.JOIN : null;
  }

  /**
   * Waits until a change may begin, then begins it. {@code subjectDraw} picks the member that
   * leaves or is removed, {@code throughDraw} the member a removal is asked of.
   *
   * @return what was done, for the step's description, or null when the change could not begin (reported)
   */
  String make(Fault kind, int subjectDraw, int throughDraw) throws IOException, InterruptedException {
    if (!awaitReady(READY_WITHIN)) {
      notMade(kind + " not made: the topology was not stable with every member up within "
          + READY_WITHIN.toSeconds() + " s; " + cluster.topologyViews() + "; membership: " + cluster.membershipViews());
      return null;
    }
    List<Integer> members = cluster.members();
    int subject = members.get(subjectDraw % members.size());
    List<Integer> others = new ArrayList<>(members);
    others.remove(Integer.valueOf(subject));
    int through = others.get(throughDraw % others.size());
    String made = switch (kind) {
      case JOIN -> join();
      case LEAVE -> leave(subject);
      case REMOVE -> remove(subject, through);
      default -> throw new IllegalArgumentException(kind + " is no topology change");
    };
    lastNotMade = made == null;
    return made;
  }

  /**
   * Starts a new node and waits until it serves. One that keeps refusing to join (it exits, is
   * started again, as a supervisor would, and exits again) although every member was just seen up
   * and the topology stable is a problem; it is retired and the run goes on without it.
   */
  private String join() throws IOException {
    long start = System.nanoTime();
    int node = cluster.launchNewNode(new JsonObject());
    log.say("JOIN: node %d starts at %s with an empty data directory", node, cluster.url(node));
    try {
      supervisor.awaitServing(node);
    } catch (AssertionError exited) {
      if (cluster.running(node)) {
        throw exited;
      }
      cluster.retire(node);
      notMade("JOIN not made: node " + node + " refused to join although every member was up and the topology stable: "
          + supervisor.exitCause(node));
      return null;
    }
    targets.add(node, cluster.url(node));
    log.say("JOIN: node %d serving after %d ms, written through from now on", node, millisSince(start));
    return begin(Fault.JOIN, node, start, "joined by itself").kind + " node " + node;
  }

  private String leave(int node) throws InterruptedException {
    long start = System.nanoTime();
    log.say("LEAVE: asking node %d to leave", node);
    HttpResponse<byte[]> answer = askUntilAccepted(node, "/admin/cluster/leave");
    if (answer == null || answer.statusCode() != 202) {
      notMade("LEAVE of node " + node + " not made: " + describe(answer));
      return null;
    }
    cluster.retire(node);
    targets.remove(node);
    log.say("LEAVE: node %d accepted after %d ms; retired, no longer written through", node, millisSince(start));
    return begin(Fault.LEAVE, node, start, "asked to leave").kind + " node " + node;
  }

  /**
   * Kills the node, waits until the others see it down, and asks another member to remove it. A
   * node the others still see alive a minute after its kill is a problem; so is a removal refused
   * past {@link #ACCEPTED_WITHIN}. Either way the node is started again and the run goes on.
   */
  private String remove(int node, int through) throws IOException, InterruptedException {
    long start = System.nanoTime();
    String url = cluster.url(node);
    targets.remove(node);
    log.say("REMOVE: kill -9 node %d (pid %d), then remove it through node %d", node, cluster.pid(node), through);
    cluster.kill(node);
    String refused;
    try {
      cluster.awaitSeenDown(node);
      HttpResponse<byte[]> answer = askUntilAccepted(through, "/admin/cluster/remove?url=" + Http.encode(url));
      refused = answer != null && answer.statusCode() == 202 ? null : "answered " + describe(answer);
    } catch (AssertionError stillAlive) {
      refused = "the others did not all see it down: " + stillAlive.getMessage() + "; " + cluster.membershipViews();
    }
    if (refused != null) {
      notMade("REMOVE of node " + node + " through node " + through + " not made, " + refused + "; starting it again");
      supervisor.startAgain(node);
      targets.add(node, url);
      return null;
    }
    cluster.retire(node);
    log.say("REMOVE: accepted by node %d %d ms after the kill; node %d retired", through, millisSince(start), node);
    return begin(Fault.REMOVE, node, start, "killed, removed through node " + through).kind + " node " + node
        + " through node " + through;
  }

  /**
   * POSTs to the node until it answers 202, asking again while it answers 409 (another change in
   * progress, a node down: its membership may lag behind what was just waited for) or 503, or does
   * not answer, at most {@link #ACCEPTED_WITHIN}; returns the last answer (null if none).
   */
  private HttpResponse<byte[]> askUntilAccepted(int node, String pathAndQuery) throws InterruptedException {
    long deadline = System.nanoTime() + ACCEPTED_WITHIN.toNanos();
    HttpResponse<byte[]> answer = null;
    int asked = 0;
    while (true) {
      asked++;
      try {
        answer = cluster.http(node).send("POST", pathAndQuery, HttpRequest.BodyPublishers.noBody());
      } catch (AssertionError unanswered) {
        answer = null;
      }
      boolean refused = answer == null || answer.statusCode() == 409 || answer.statusCode() == 503;
      if (!refused || System.nanoTime() > deadline) {
        if (asked > 1) {
          log.say("POST %s on node %d asked %d times", pathAndQuery, node, asked);
        }
        return answer;
      }
      if (asked == 1) {
        log.say("POST %s on node %d: %s; asking again", pathAndQuery, node, describe(answer));
      }
      Thread.sleep(POLL_MS);
    }
  }

  private static String describe(HttpResponse<byte[]> answer) {
    return answer == null ? "no answer" : answer.statusCode() + " " + Http.text(answer).strip();
  }

  /** Records the change and watches, from the watcher thread, until every member says it is over. */
  private Change begin(Fault kind, int node, long start, String how) {
    Change change = new Change(kind, node, start, how);
    changes.add(change);
    Set<String> members = cluster.memberUrls();
    watcher.execute(() -> {
      while (!closed && !ProcessCluster.stableEverywhere(members)) {
        try {
          Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
          return;
        }
      }
      if (!closed) {
        sawStable(change);
      }
    });
    return change;
  }

  /** The first sighting counts, the watcher's or the nemesis's (the watcher may be held up by a node that stopped answering). */
  private void sawStable(Change change) {
    synchronized (change) {
      if (change.stable()) {
        return;
      }
      change.stableNanos = System.nanoTime();
    }
    log.say("%s", change);
  }

  /**
   * Polls until every member runs, every member sees every member alive and all say the topology
   * is stable at one epoch, at most {@code within}; then checks that the nodes that left exited 0.
   */
  boolean awaitReady(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    long start = System.nanoTime();
    while (!(cluster.members().stream().allMatch(cluster::running) && cluster.allSeeAll() && cluster.stableEverywhere())) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(POLL_MS);
    }
    if (millisSince(start) > POLL_MS) {
      log.say("topology stable, every member up, after waiting %d ms", millisSince(start));
    }
    if (!changes.isEmpty()) {
      sawStable(changes.get(changes.size() - 1));
    }
    checkLeaversExited();
    return true;
  }

  /**
   * Waits, after the last fault was undone, until the last change is over everywhere; a change
   * still under way then is a problem (the product promises a change goes on once its nodes are back).
   */
  void awaitSettled() throws InterruptedException {
    settled = awaitReady(READY_WITHIN);
    if (!settled) {
      problems.add("the topology was not stable on every member " + READY_WITHIN.toSeconds() + " s after every"
          + " fault was undone: " + cluster.topologyViews());
      log.say("%s", problems.get(problems.size() - 1));
    }
  }

  /** Whether the last change was over everywhere after the last fault was undone ({@link #awaitSettled}). */
  boolean settled() {
    return settled;
  }

  /** A node that left must exit 0 by itself once the change is over: a problem if it does not. */
  private void checkLeaversExited() throws InterruptedException {
    for (Change change : changes) {
      if (change.kind != Fault.LEAVE || change.exitChecked) {
        continue;
      }
      change.exitChecked = true;
      try {
        int status = cluster.awaitExit(change.node, LEAVER_EXITS_WITHIN);
        change.exit = status == 0 ? ", its process exited 0" : ", its process exited " + status;
        if (status != 0) {
          problems.add("node " + change.node + " left and exited with status " + status);
        }
      } catch (AssertionError stillRunning) {
        change.exit = ", its process did not exit";
        problems.add("node " + change.node + " left but had not exited " + LEAVER_EXITS_WITHIN.toSeconds()
            + " s after the change was over: " + stillRunning.getMessage());
      }
    }
  }

  /**
   * A change the schedule called for could not be made although every member was up: the
   * topology did not settle, the change was refused, a killed node was still seen alive. The
   * product promises each, so each is a problem too.
   */
  private void notMade(String why) {
    lastNotMade = true;
    notMade.add(why);
    problems.add(why);
    log.say("%s", why);
  }

  /** The changes begun, in order. */
  List<Change> changes() {
    return List.copyOf(changes);
  }

  /** Why changes the schedule called for were not made. */
  List<String> notMade() {
    return List.copyOf(notMade);
  }

  /** Whether the latest change the schedule called for could not be made. */
  boolean lastNotMade() {
    return lastNotMade;
  }

  /**
   * Broken promises of the changes themselves: a change that never ended, a change not made (see
   * {@link #notMade}), a node that left and did not exit 0.
   */
  List<String> problems() {
    return List.copyOf(problems);
  }

  @Override
  public void close() {
    closed = true;
    watcher.shutdownNow();
  }

  private static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }
}
