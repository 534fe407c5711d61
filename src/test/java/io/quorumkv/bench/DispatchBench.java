package io.quorumkv.bench;

import io.quorumkv.config.StorageConfig;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.RocksDatabase;
import io.quorumkv.storage.RocksStore;
import io.quorumkv.storage.StorageExecutor;
import io.quorumkv.storage.StorageVerticle;
import io.quorumkv.storage.WorkerContextExecutor;
import io.quorumkv.support.TestFiles;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * How should event loops hand RocksDB work to the storage worker verticles? Measures, in one
 * run and interleaved, RocksDB point reads dispatched through the local event bus (by-reference
 * codec) and directly onto the worker verticles' contexts, with the same storage, worker count
 * and concurrency, and prints the median throughput of each and their ratio.
 *
 * <p>Kept with the tests, not in the node: {@code mvn -q -DskipTests package test-compile}, then
 * {@code java -cp target/test-classes:target/quorumkv.jar io.quorumkv.bench.DispatchBench [opsPerRound] [rounds]}
 */
public final class DispatchBench {
  private static final int KEYS = 100_000;
  private static final int EVENT_LOOPS = 2;
  private static final int IN_FLIGHT_PER_LOOP = 32;
  private static final long TIMEOUT_MS = 30_000;

  private DispatchBench() {
  }

  public static void main(String[] args) throws Exception {
    int opsPerRound = args.length > 0 ? Integer.parseInt(args[0]) : 400_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("quorumkv-dispatch-bench");
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(EVENT_LOOPS));
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      byte[] value = new byte[100];
      for (int i = 0; i < KEYS; i++) {
        store.apply(key(i), Record.live(1, value, Record.NEVER));
      }
      List<Context> workers = StorageVerticle.newContextRegistry();
      EventBusExecutor.registerCodec(vertx);
      DeploymentOptions workerOptions = new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)
          .setInstances(StorageConfig.defaultWorkers());
      await(vertx.deployVerticle(() -> new StorageVerticle(workers), workerOptions));
      await(vertx.deployVerticle(EventBusExecutor::consumer, workerOptions));
      Map<String, StorageExecutor> executors = Map.of(
          "event bus (local codec)", new EventBusExecutor(vertx, TIMEOUT_MS),
          "worker context (direct)", new WorkerContextExecutor(vertx, workers));
      List<String> names = executors.keySet().stream().sorted().toList();
      Map<String, List<Double>> results = new java.util.TreeMap<>();
      System.out.printf("%d RocksDB gets per round, %d event loops x %d in flight, %d storage workers, %d rounds%n",
          opsPerRound, EVENT_LOOPS, IN_FLIGHT_PER_LOOP, StorageConfig.defaultWorkers(), rounds);
      runRound(vertx, executors.get(names.get(0)), store, opsPerRound / 4); // warm-up
      runRound(vertx, executors.get(names.get(1)), store, opsPerRound / 4);
      for (int round = 1; round <= rounds; round++) {
        for (String name : names) {
          double opsPerSec = runRound(vertx, executors.get(name), store, opsPerRound);
          results.computeIfAbsent(name, n -> new ArrayList<>()).add(opsPerSec);
          System.out.printf("round %d  %-26s %,10.0f ops/s%n", round, name, opsPerSec);
        }
      }
      System.out.println();
      double direct = median(results.get("worker context (direct)"));
      double bus = median(results.get("event bus (local codec)"));
      System.out.printf("median  worker context (direct)  %,10.0f ops/s%n", direct);
      System.out.printf("median  event bus (local codec)  %,10.0f ops/s%n", bus);
      System.out.printf("ratio   direct / event bus       %10.2f%n", direct / bus);
    } finally {
      await(vertx.close());
      TestFiles.deleteTree(dir);
    }
  }

  private static double runRound(Vertx vertx, StorageExecutor executor, RocksStore store, int ops) throws Exception {
    long start = System.nanoTime();
    List<Future<Void>> loops = new ArrayList<>();
    for (int loop = 0; loop < EVENT_LOOPS; loop++) {
      Promise<Void> done = Promise.promise();
      Context context = vertx.getOrCreateContext();
      context.runOnContext(v -> new Driver(executor, store, ops / EVENT_LOOPS, done).start());
      loops.add(done.future());
    }
    await(Future.all(loops));
    return ops / ((System.nanoTime() - start) / 1e9);
  }

  /** Keeps a fixed number of reads in flight from one event loop until its share is done. */
  private static final class Driver {
    private final StorageExecutor executor;
    private final Function<byte[], Record> read;
    private final Promise<Void> done;
    private int remainingToIssue;
    private int outstanding;

    Driver(StorageExecutor executor, RocksStore store, int ops, Promise<Void> done) {
      this.executor = executor;
      this.read = store::get;
      this.remainingToIssue = ops;
      this.done = done;
    }

    void start() {
      for (int i = 0; i < IN_FLIGHT_PER_LOOP; i++) {
        issue();
      }
    }

    private void issue() {
      if (remainingToIssue == 0) {
        if (outstanding == 0) {
          done.tryComplete();
        }
        return;
      }
      remainingToIssue--;
      outstanding++;
      byte[] key = key(ThreadLocalRandom.current().nextInt(KEYS));
      executor.submit(() -> read.apply(key)).onComplete(result -> {
        outstanding--;
        if (result.failed()) {
          done.tryFail(result.cause());
        } else {
          issue();
        }
      });
    }
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(5, TimeUnit.MINUTES);
  }

}
