package io.quorumkv.support;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Starts clusters for a test class and ends them: each cluster in a temporary directory made for
 * it, closed and its directory deleted when the test that started it ends (passed or failed),
 * or after all tests when it was started in {@code @BeforeAll}.
 *
 * <p>A test class registers it, {@code @RegisterExtension final ClusterExtension clusters = new ClusterExtension();},
 * and starts a cluster where it needs one, {@code ProcessCluster cluster = clusters.start(3, conf);}.
 * For one cluster shared by all tests of a class, register it in a {@code static} field and start
 * the cluster in {@code @BeforeAll}. Clusters close after the class's own {@code @AfterEach} or
 * {@code @AfterAll} methods, so these can still stop what uses the cluster first.
 */
public final class ClusterExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {
  private static final Namespace NAMESPACE = Namespace.create(ClusterExtension.class);

  /** What a cluster started now belongs to: the running test, else the class. */
  private volatile ExtensionContext scope;

  /**
   * {@code size} node processes with {@code conf} merged into each node's conf:
   * {@link ProcessCluster#start(int, Path, JsonObject)}.
   */
  public ProcessCluster start(int size, JsonObject conf) throws IOException {
    return start(new ProcessCluster.Options(size).conf(conf));
  }

  /** Node processes as the options describe: {@link ProcessCluster#start(ProcessCluster.Options, Path)}. */
  public ProcessCluster start(ProcessCluster.Options options) throws IOException {
    return own(dir -> ProcessCluster.start(options, dir));
  }

  /** {@code size} nodes in this JVM: {@link TestCluster#start}. */
  public TestCluster startInJvm(int size, JsonObject conf) {
    try {
      return own(dir -> TestCluster.start(size, dir, conf));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code size} node processes, each run launched by the test: {@link NodeProcesses#start}. */
  public NodeProcesses startNodeProcesses(int size, JsonObject conf) throws IOException {
    return own(dir -> NodeProcesses.start(size, dir, conf));
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    scope = context;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    scope = context;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    scope = context.getParent().orElse(null);
  }

  private <C extends AutoCloseable> C own(Start<C> start) throws IOException {
    ExtensionContext context = scope;
    if (context == null) {
      throw new IllegalStateException("start a cluster in a test or @BeforeEach, or in @BeforeAll with the extension"
          + " in a static field");
    }
    String prefix = "quorumkv-" + context.getRequiredTestClass().getSimpleName() + "-";
    Owned owned = new Owned(Files.createTempDirectory(prefix));
    // Stored before the start: a start that fails still has its directory deleted.
    context.getStore(NAMESPACE).put(owned, owned);
    C cluster = start.in(owned.dir);
    owned.cluster = cluster;
    return cluster;
  }

  private interface Start<C> {
    C in(Path dir) throws IOException;
  }

  /** A cluster and its directory, which JUnit closes when the scope the cluster was started in ends. */
  private static final class Owned implements ExtensionContext.Store.CloseableResource {
    private final Path dir;
    private volatile AutoCloseable cluster;

    Owned(Path dir) {
      this.dir = dir;
    }

    @Override
    public void close() throws Exception {
      try {
        if (cluster != null) {
          cluster.close();
        }
      } finally {
        TestFiles.deleteTree(dir);
      }
    }
  }
}
