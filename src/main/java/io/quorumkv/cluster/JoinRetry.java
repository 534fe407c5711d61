package io.quorumkv.cluster;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Joins the Hazelcast cluster, and joins again while Hazelcast refuses new members for its
 * cluster state ({@code FROZEN} or {@code PASSIVE}, which another member of the group set: the
 * nodes set it back to ACTIVE within a second or two, {@link HazelcastMembership}): after a pause of 1 s doubling up to 30 s, each ±25 % at random, for at most
 * {@link #RETRY_FOR} from the first attempt. Any other failure ends the join at once.
 *
 * <p>Each attempt must start from nothing and leave nothing behind when it fails: a refused
 * Hazelcast member shuts itself down before its start fails. The pauses are timers of a scheduled executor, as between attempts
 * there is no Vert.x to set one on; nothing sleeps.
 */
public final class JoinRetry {
  private static final System.Logger LOG = System.getLogger(JoinRetry.class.getName());
  public static final Duration RETRY_FOR = Duration.ofMinutes(5);
  static final long FIRST_PAUSE_MS = 1_000;
  static final long MAX_PAUSE_MS = 30_000;
  static final double JITTER = 0.25;

  /** Runs a task after a pause, on a thread of its choosing; stopped once the join is over. */
  interface Timer {
    void after(long delayMs, Runnable task);

    default void stop() {
    }
  }

  private final long retryForMs;
  private final Timer timer;
  private final LongSupplier nanoTime;
  private final DoubleSupplier random;

  JoinRetry(Duration retryFor, Timer timer, LongSupplier nanoTime, DoubleSupplier random) {
    this.retryForMs = retryFor.toMillis();
    this.timer = timer;
    this.nanoTime = nanoTime;
    this.random = random;
  }

  /**
   * Retries for {@link #RETRY_FOR}, the pauses timed by a thread of its own, started at the first
   * pause. Not a daemon: between two attempts it is the only thread that keeps the JVM running.
   */
  public static JoinRetry standard() {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
        task -> new Thread(task, "quorumkv-join-retry"));
    return new JoinRetry(RETRY_FOR, new Timer() {
      @Override
      public void after(long delayMs, Runnable task) {
        scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
      }

      @Override
      public void stop() {
        scheduler.shutdown();
      }
    }, System::nanoTime, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * Runs {@code attempt} until it succeeds, fails for another reason than a refusal for the
   * cluster state, or the refusals have lasted {@link #RETRY_FOR}.
   */
  public <T> Future<T> join(Supplier<Future<T>> attempt) {
    Promise<T> joined = Promise.promise();
    run(attempt, joined, nanoTime.getAsLong(), 0);
    return joined.future().onComplete(over -> timer.stop());
  }

  private <T> void run(Supplier<Future<T>> attempt, Promise<T> joined, long firstStart, int refusals) {
    StateRefusalWatch watch = StateRefusalWatch.start();
    Future<T> outcome;
    try {
      outcome = attempt.get();
    } catch (RuntimeException e) {
      watch.close();
      joined.fail(e);
      return;
    }
    outcome.onComplete(result -> {
      watch.close();
      String state = watch.refusedState();
      if (result.succeeded()) {
        joined.complete(result.result());
        return;
      }
      if (state == null) {
        joined.fail(result.cause());
        return;
      }
      long pauseMs = pauseMs(refusals);
      long refusedForMs = TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - firstStart);
      if (refusedForMs + pauseMs > retryForMs) {
        joined.fail(new IllegalStateException("Hazelcast refused the join for " + refusedForMs / 1_000
            + " s (cluster state " + state + ")", result.cause()));
        return;
      }
      LOG.log(System.Logger.Level.WARNING, String.format(Locale.ROOT,
          "Hazelcast refused the join (cluster state %s, a merge in progress?); retrying in %.1f s",
          state, pauseMs / 1_000.0));
      timer.after(pauseMs, () -> run(attempt, joined, firstStart, refusals + 1));
    });
  }

  /** The pause after the {@code refusals}+1-th refusal: 1 s doubling up to 30 s, ±25 %. */
  long pauseMs(int refusals) {
    long nominal = FIRST_PAUSE_MS << Math.min(refusals, 5);
    nominal = Math.min(nominal, MAX_PAUSE_MS);
    return Math.round(nominal * (1 - JITTER + 2 * JITTER * random.getAsDouble()));
  }
}
