package io.quorumkv.support;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Injects faults into a {@link ProcessCluster}, one step at a time, each held a few seconds and
 * then healed before the next: {@code kill -9} and restart, {@code SIGSTOP}/{@code SIGCONT}, one
 * node cut off from the others (a majority and a minority), one link between two nodes cut (the
 * third still sees both), and a node's clock moved by up to {@code maxSkewMillis} either way, alone
 * or on top of another fault (a node whose clock is off that also restarts, pauses or is cut off);
 * a moved clock stays off through the next step too. A restart during a heal cuts a node off until
 * it and the others see each other down, then kills another node and starts it again the moment
 * the partition heals, so that it joins while Hazelcast merges the two sides (the side that merges
 * sets its cluster state to {@code FROZEN}, which refuses new members: the node must retry its
 * join, not exit).
 * Every {@code killEvery}-th step is a kill, so the number of kills grows with the run's length;
 * the other steps deal the other kinds from a deck shuffled anew each time it runs out, so every
 * kind comes once within a round of steps, however few steps a slow machine gets through (drawn
 * at random, a 75 s run that managed three steps never cut the network).
 *
 * <p>With {@link Fault#JOIN}, {@link Fault#LEAVE} or {@link Fault#REMOVE} among the kinds, every
 * {@code changeEvery}-th step that is not a kill begins with a topology change
 * ({@link TopologyChanges}: once every fault is undone, every member up and the topology stable),
 * and its fault then comes while the change streams; the steps after it, kills among them, often
 * still find it streaming. So a round of the short run (a kill every third step) makes four
 * changes, which is what it takes to make each kind once: join, leave or removal, join, the
 * other. Victims are always current members; a node that left or was removed is never touched
 * again. A run goes on past its duration until every kind has been injected (or a change it
 * still needs could not begin). Which fault, which change, which node, how long and how far all
 * come from the seed; only timing differs between replays.
 */
public final class Nemesis implements AutoCloseable {
  private static final long HOLD_MIN_MS = 2_000;
  private static final int HOLD_SPREAD_MS = 1_500;
  private static final long MIN_SKEW_MS = 500;
  private static final long KILL_DOWN_MS = 500;
  private static final Duration SETTLE = Duration.ofSeconds(60);
  private static final Duration FINAL_SETTLE = Duration.ofSeconds(120);
  /** How long a node cut off may take until it and the others see each other down (maxNoHeartbeatSeconds and more). */
  private static final Duration SPLIT_WITHIN = Duration.ofSeconds(20);
  private static final Pattern LEASE_WAIT = Pattern.compile("waiting (\\d+) ms for the wall clock");
  /** The node's line for each join Hazelcast refused for its cluster state (io.quorumkv.cluster.JoinRetry). */
  private static final Pattern JOIN_RETRY = Pattern.compile("Hazelcast refused the join \\(cluster state \\w+");
  /** Hazelcast's warning on the master of a side that merges into another after a split. */
  private static final Pattern MERGE = Pattern.compile(" is merging \\[tcp/ip] to ");

  public enum Fault {
    KILL, PAUSE, ISOLATE, CUT_LINK, SKEW, RESTART_DURING_HEAL, JOIN, LEAVE, REMOVE;

    /** Cuts nodes off with iptables. */
    public boolean partitions() {
      return this == ISOLATE || this == CUT_LINK || this == RESTART_DURING_HEAL;
    }

    /** A change of the cluster's topology ({@link TopologyChanges}), not a fault of a member. */
    public boolean changesTopology() {
      return this == JOIN || this == LEAVE || this == REMOVE;
    }
  }

  /**
   * @param faults        the kinds to inject; with {@link Fault#SKEW} among them a skew may also come on top of another fault
   * @param killEvery     with {@link Fault#KILL} among the faults, every {@code killEvery}-th step is a kill (from the first)
   * @param changeEvery   with topology changes among the faults, every {@code changeEvery}-th step that is not a kill
   *                      begins with one (from the first; every step when all are kills)
   * @param maxSkewMillis largest clock offset, either way
   */
  public record Settings(Set<Fault> faults, int killEvery, int changeEvery, long maxSkewMillis, long seed) {
    public Settings {
      if (killEvery < 1) {
        throw new IllegalArgumentException("killEvery must be at least 1: " + killEvery);
      }
      if (changeEvery < 1) {
        throw new IllegalArgumentException("changeEvery must be at least 1: " + changeEvery);
      }
    }

    boolean has(Fault fault) {
      return faults.contains(fault);
    }

    boolean changesTopology() {
      return faults.stream().anyMatch(Fault::changesTopology);
    }
  }

  private final ProcessCluster cluster;
  private final Firewall firewall;
  private final Settings settings;
  private final Random random;
  private final StepLog log;
  private final Supervisor supervisor;
  private final TopologyChanges changes;
  /** The kinds dealt from the deck: neither kills nor topology changes. */
  private final List<Fault> others = new ArrayList<>();
  /** The other kinds still to deal in this round; refilled and shuffled when empty. */
  private final List<Fault> deck = new ArrayList<>();
  private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
  private final List<Long> restartMillis = new ArrayList<>();
  private final Set<Integer> paused = new HashSet<>();
  private final List<Step> steps = new ArrayList<>();
  /** The node whose clock the previous step moved, -1 if none: it is reset at the end of this step. */
  private int skewedBefore = -1;
  private int slowHeals;

  /**
   * @param firewall needed for the faults that {@link Fault#partitions partition}, else null
   * @param targets  told of nodes that join (once they serve) and of nodes that leave or are removed
   */
  public Nemesis(ProcessCluster cluster, Firewall firewall, WriteTargets targets, Settings settings, long originNanos,
                 PrintStream log) {
    if (settings.faults().stream().anyMatch(Fault::partitions) && firewall == null) {
      throw new IllegalArgumentException("partitions need a firewall");
    }
    if (settings.has(Fault.SKEW) && !cluster.hasFakeClocks()) {
      throw new IllegalArgumentException("skews need a cluster on fake clocks");
    }
    if (settings.faults().isEmpty()) {
      throw new IllegalArgumentException("no faults to inject");
    }
    this.cluster = cluster;
    this.firewall = firewall;
    this.settings = settings;
    this.random = new Random(settings.seed());
    this.log = new StepLog(log, originNanos);
    this.supervisor = new Supervisor(cluster, this.log);
    this.changes = new TopologyChanges(cluster, targets, supervisor, this.log,
        settings.faults().stream().filter(Fault::changesTopology).collect(Collectors.toSet()));
    for (Fault fault : Fault.values()) {
      injected.put(fault, 0);
      if (fault != Fault.KILL && !fault.changesTopology() && settings.has(fault)) {
        others.add(fault);
      }
    }
  }

  /**
   * Runs steps until {@code duration} has passed and every kind has been injected at least once
   * (the last step is finished, so it may run over).
   */
  public void run(Duration duration) throws IOException, InterruptedException {
    long end = System.nanoTime() + duration.toNanos();
    int mayChange = 0;
    for (int step = 0; System.nanoTime() < end || !(everyKindInjected() || changes.lastNotMade()); step++) {
      boolean kill = settings.has(Fault.KILL) && (step % settings.killEvery() == 0 || others.isEmpty());
      Fault fault = kill ? Fault.KILL : others.isEmpty() ? null : deal();
      boolean change = settings.changesTopology() && (!kill || others.isEmpty())
          && mayChange++ % settings.changeEvery() == 0;
      step(fault, change);
    }
  }

  private Fault deal() {
    if (deck.isEmpty()) {
      deck.addAll(others);
      Collections.shuffle(deck, random);
    }
    return deck.remove(deck.size() - 1);
  }

  private boolean everyKindInjected() {
    return settings.faults().stream().allMatch(fault -> injected.get(fault) > 0);
  }

  /**
   * How many faults of each kind were injected (a skew on top of another fault counts as a skew
   * too), topology changes by the kind of change begun.
   */
  public Map<Fault, Integer> injected() {
    return Collections.unmodifiableMap(new EnumMap<>(injected));
  }

  /** A step of the schedule: when it began, when its last fault was undone, what it did. */
  public record Step(long startNanos, long endNanos, String what) {
  }

  /** The steps run so far, in order. */
  public List<Step> steps() {
    return List.copyOf(steps);
  }

  /** How long each restart after a kill took until the node served again (lease wait included). */
  public List<Long> restartMillis() {
    return List.copyOf(restartMillis);
  }

  /**
   * Undoes every fault that may still be in force (retired nodes are left alone), waits until
   * every member sees every member alive, then until the last topology change is over everywhere
   * (its leaving node exited); a change that is not is one of the {@link #changeProblems}.
   */
  public void healAll() throws IOException, InterruptedException {
    if (firewall != null) {
      firewall.healAll();
    }
    skewedBefore = -1;
    for (int node : cluster.members()) {
      if (cluster.hasFakeClocks()) {
        cluster.clock(node).setOffsetMillis(0);
      }
      if (paused.remove(node)) {
        cluster.resume(node);
      }
      if (!cluster.running(node)) {
        supervisor.startAgain(node);
      }
    }
    if (!awaitWholeMembership(FINAL_SETTLE)) {
      throw new AssertionError("membership has not healed " + FINAL_SETTLE.toSeconds() + " s after every fault was"
          + " undone: " + cluster.membershipViews());
    }
    changes.awaitSettled();
  }

  private void step(Fault fault, boolean changeFirst) throws IOException, InterruptedException {
    // Every random choice of the step first, so that the schedule depends on the seed alone; nodes
    // are drawn as numbers, mapped onto the members there are once the step's change has begun.
    Fault change = changeFirst ? changes.next(cluster.members().size(), random) : null;
    int subjectDraw = random.nextInt(Integer.MAX_VALUE);
    int throughDraw = random.nextInt(Integer.MAX_VALUE);
    int victimDraw = random.nextInt(Integer.MAX_VALUE);
    int peerDraw = random.nextInt(Integer.MAX_VALUE);
    long holdMs = HOLD_MIN_MS + random.nextInt(HOLD_SPREAD_MS);
    // On top of another fault, the skew hits its victim: a node whose clock is off and that also
    // restarts, resumes from a pause (with requests queued while it stood still) or is cut off.
    boolean skew = settings.has(Fault.SKEW) && (fault == Fault.SKEW || random.nextBoolean());
    long offset = (random.nextBoolean() ? 1 : -1)
        * (MIN_SKEW_MS + (long) (random.nextDouble() * (settings.maxSkewMillis() - MIN_SKEW_MS)));

    long started = System.nanoTime();
    String made = change == null ? null : beginChange(change, subjectDraw, throughDraw);
    if (made != null) {
      count(change);
    }
    List<Integer> members = cluster.members();
    int victim = members.get(victimDraw % members.size());
    int peer = members.get((members.indexOf(victim) + 1 + peerDraw % (members.size() - 1)) % members.size());
    String description = (change == null ? "" : (made == null ? change + " not made" : made) + "; ")
        + (fault == null ? "no fault" : fault + (fault == Fault.CUT_LINK ? " nodes " + victim + "-" + peer
        : fault == Fault.RESTART_DURING_HEAL ? " node " + victim + ", node " + peer + " restarted"
        : " node " + victim)) + (skew ? String.format(Locale.ROOT, ", clock of node %d %+d ms", victim, offset) : "");
    if (skew) {
      setClock(victim, offset);
    }
    if (skewedBefore >= 0 && !(skew && skewedBefore == victim)) {
      description += String.format(Locale.ROOT, ", node %d clock still %+d ms", skewedBefore,
          cluster.clock(skewedBefore).offsetMillis());
    }
    if (fault == null) {
      finishStep(started, description, skew, victim, made == null && !skew ? holdMs : 0);
      return;
    }
    switch (fault) {
      case KILL -> {
        say("kill -9 node %d (pid %d), restart after %d ms", victim, cluster.pid(victim), KILL_DOWN_MS);
        cluster.kill(victim);
      }
      case PAUSE -> {
        say("SIGSTOP node %d for %d ms", victim, holdMs);
        cluster.suspend(victim);
        paused.add(victim);
      }
      case ISOLATE -> {
        say("isolate node %d from the others for %d ms", victim, holdMs);
        isolate(victim);
      }
      case CUT_LINK -> {
        say("cut the link between nodes %d and %d for %d ms", victim, peer, holdMs);
        firewall.cut(cluster.host(victim), cluster.host(peer));
      }
      case SKEW -> say("hold the skew for %d ms", holdMs);
      case RESTART_DURING_HEAL -> {
        say("isolate node %d from the others until the two sides see each other down, then restart node %d as the"
            + " partition heals", victim, peer);
        isolate(victim);
      }
      default -> throw new IllegalStateException(fault.toString());
    }
    if (fault != Fault.SKEW) {
      count(fault); // a skew counts when it is set
    }
    if (fault == Fault.RESTART_DURING_HEAL) {
      awaitSplit(victim);
    } else {
      // A killed node is started again at once: it stays down anyway until its clock lease has run out (8-10 s).
      Thread.sleep(fault == Fault.KILL ? KILL_DOWN_MS : holdMs);
    }
    heal(fault, victim, peer);
    finishStep(started, description, skew, victim, 0);
  }

  /**
   * Polls until the node cut off and the others see each other down, at most {@link #SPLIT_WITHIN}:
   * Hazelcast then runs as two clusters, which merge after the heal.
   */
  private void awaitSplit(int victim) throws InterruptedException {
    long start = System.nanoTime();
    while (!split(victim)) {
      if (System.nanoTime() - start > SPLIT_WITHIN.toNanos()) {
        say("the two sides still see each other %d s after the cut, healing anyway: %s", SPLIT_WITHIN.toSeconds(),
            cluster.membershipViews());
        return;
      }
      Thread.sleep(100);
    }
    say("split: node %d and the others see each other down after %d ms", victim, (System.nanoTime() - start) / 1_000_000);
  }

  private boolean split(int victim) {
    try {
      for (int node : cluster.members()) {
        if (!cluster.running(node)) {
          continue;
        }
        Map<String, Boolean> view = cluster.aliveAsSeenBy(node);
        for (int other : cluster.members()) {
          if (other != node && (node == victim || other == victim) && cluster.running(other)
              && !Boolean.FALSE.equals(view.get(cluster.url(other)))) {
            return false;
          }
        }
      }
      return true;
    } catch (AssertionError unanswered) {
      return false;
    }
  }

  /** Cuts the node off from every other node that runs: a node still handing its records over as it leaves too. */
  private void isolate(int victim) throws IOException, InterruptedException {
    for (int other = 0; other < cluster.size(); other++) {
      if (other != victim && cluster.running(other)) {
        firewall.cut(cluster.host(victim), cluster.host(other));
      }
    }
  }

  /**
   * Begins the step's topology change, every fault undone first: the clock the previous step left
   * off too. Returns what was done, or null when the change could not begin.
   */
  private String beginChange(Fault change, int subjectDraw, int throughDraw) throws IOException, InterruptedException {
    if (skewedBefore >= 0) {
      setClock(skewedBefore, 0);
      skewedBefore = -1;
    }
    return changes.make(change, subjectDraw, throughDraw);
  }

  /** Holds a step that injected nothing else, waits for membership to heal, and records the step. */
  private void finishStep(long started, String description, boolean skew, int victim, long holdMs)
      throws IOException, InterruptedException {
    Thread.sleep(holdMs);
    settle();
    // A clock stays off through the next step as well, as wrong clocks do for a while: the next
    // step's fault then hits a cluster whose versions one node pushes ahead (or holds back).
    if (skewedBefore >= 0 && skewedBefore != (skew ? victim : -1)) {
      setClock(skewedBefore, 0);
    }
    skewedBefore = skew ? victim : -1;
    steps.add(new Step(started, System.nanoTime(), description));
  }

  /**
   * Waits until every node sees every node alive again, at most {@link #SETTLE}. A membership
   * that takes longer is reported and counted, and the run goes on: the run is there to test
   * what happens to the data, which the faults of the next steps still do.
   */
  private void settle() throws InterruptedException {
    if (!awaitWholeMembership(SETTLE)) {
      slowHeals++;
      say("membership has not healed %d s after the fault was undone, going on: %s", SETTLE.toSeconds(),
          cluster.membershipViews());
    }
  }

  /**
   * Polls until every node sees every node alive, at most {@code limit}; says how long it took,
   * and what each node saw when it did not heal at the first look, to tell a slow heal's cause.
   */
  private boolean awaitWholeMembership(Duration limit) throws InterruptedException {
    long start = System.nanoTime();
    if (cluster.allSeeAll()) {
      return true;
    }
    say("membership not whole yet: %s", cluster.membershipViews());
    while (!cluster.allSeeAll()) {
      if (System.nanoTime() - start > limit.toNanos()) {
        return false;
      }
      Thread.sleep(100);
    }
    say("every node sees every node again after %d ms", (System.nanoTime() - start) / 1_000_000);
    return true;
  }

  /** Steps after which membership took longer than {@link #SETTLE} to see every node again. */
  public int slowHeals() {
    return slowHeals;
  }

  private void heal(Fault fault, int victim, int peer) throws IOException, InterruptedException {
    switch (fault) {
      case KILL -> restart(victim, "");
      case RESTART_DURING_HEAL -> {
        // Hazelcast looks for the other side every 10 s (hazelcast.merge.next.run.delay.seconds), so
        // the two sides merge within 10 s of the heal, while the peer starts and joins.
        say("kill -9 node %d (pid %d), heal the partition and start node %d again at once", peer, cluster.pid(peer),
            peer);
        cluster.kill(peer);
        firewall.healAll();
        restart(peer, " during the heal");
      }
      case PAUSE -> {
        cluster.resume(victim);
        paused.remove(victim);
        say("SIGCONT node %d", victim);
      }
      case ISOLATE, CUT_LINK -> {
        firewall.healAll();
        say("partition healed");
      }
      case SKEW -> {
        // The clock is reset after the hold, below.
      }
      default -> throw new IllegalStateException(fault.toString());
    }
  }

  /** Starts the killed node again, waits until it serves, and says how long that took and why. */
  private void restart(int node, String when) throws IOException {
    long start = System.nanoTime();
    supervisor.startAgain(node);
    long took = (System.nanoTime() - start) / 1_000_000;
    restartMillis.add(took);
    String log = cluster.currentLog(node);
    Matcher lease = LEASE_WAIT.matcher(log);
    String waited = "no lease wait";
    while (lease.find()) {
      waited = "of which " + lease.group(1) + " ms waiting out its clock lease";
    }
    long refusals = JOIN_RETRY.matcher(log).results().count();
    say("node %d restarted%s, serving after %d ms (%s%s)", node, when, took, waited,
        refusals == 0 ? "" : "; " + refusals + " joins refused by Hazelcast and retried");
  }

  /** The starts that exited before serving and were started again, with their causes. */
  public List<String> failedStarts() {
    return supervisor.failedStarts();
  }

  /** The {@link #failedStarts} whose node Hazelcast had refused for its cluster state: the node should have retried. */
  public List<String> frozenExits() {
    return supervisor.frozenExits();
  }

  /** Joins that Hazelcast refused for its cluster state and the node retried, by node (all its runs; nodes with none left out). */
  public Map<Integer, Long> joinRetries() {
    return linesByNode(JOIN_RETRY);
  }

  /** Merges of one side of a split into the other, by the node that led its side's merge (all its runs). */
  public Map<Integer, Long> merges() {
    return linesByNode(MERGE);
  }

  private Map<Integer, Long> linesByNode(Pattern line) {
    Map<Integer, Long> counts = new TreeMap<>();
    for (int node = 0; node < cluster.size(); node++) {
      long count = line.matcher(cluster.log(node)).results().count();
      if (count > 0) {
        counts.put(node, count);
      }
    }
    return counts;
  }

  /** Each topology change begun: kind, node, how it was made and how long until every member said stable. */
  public List<String> changes() {
    return changes.changes().stream().map(Object::toString).toList();
  }

  /** Why changes the schedule called for were not made (each is one of the {@link #changeProblems} too). */
  public List<String> changesNotMade() {
    return changes.notMade();
  }

  /**
   * Promises the changes themselves broke: a change not over everywhere once every fault was
   * undone, a change the schedule called for and could not make although every member was up (the
   * one before it not over within two minutes, a join or a removal refused, a node killed for a
   * removal that the others kept seeing alive), a node that left and did not exit 0 by itself.
   */
  public List<String> changeProblems() {
    return changes.problems();
  }

  /** Whether, after {@link #healAll}, every member agreed the topology was stable with the current members. */
  public boolean topologySettled() {
    return changes.settled();
  }

  @Override
  public void close() {
    changes.close();
  }

  private void setClock(int node, long offsetMillis) throws IOException {
    cluster.clock(node).setOffsetMillis(offsetMillis);
    if (offsetMillis != 0) {
      count(Fault.SKEW);
      say("node %d clock %+d ms", node, offsetMillis);
    } else {
      say("node %d clock back to real time", node);
    }
  }

  private void count(Fault fault) {
    injected.merge(fault, 1, Integer::sum);
  }

  private void say(String format, Object... args) {
    log.say(format, args);
  }
}
