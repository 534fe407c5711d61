package io.quorumkv.support;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A class-data-sharing archive of a node's start, made once per test JVM by one node that starts,
 * stores and reads a key, and stops: the node JVMs the tests launch map its classes instead of
 * loading them, and serve in about 60% of the time (1.2 against 2.1 s on an idle 2-core machine,
 * more on a busy one). The JVM archives classes from jars only, so the directories of the test
 * class path (target/classes, target/test-classes) go into jars of their own first. If the archive
 * cannot be made, nodes start on the test class path as it is, without one.
 */
final class NodeClassArchive {
  private static final String FILE = "node-classes.jsa";
  private static NodeClassArchive instance;

  /** The class path a node is launched with, and the JVM options that make it map the archive. */
  final String classpath;
  final List<String> jvmOptions;

  private NodeClassArchive(String classpath, List<String> jvmOptions) {
    this.classpath = classpath;
    this.jvmOptions = jvmOptions;
  }

  /** How to launch a node, the archive made at the first call. */
  static synchronized NodeClassArchive get() {
    if (instance == null) {
      instance = make();
    }
    return instance;
  }

  private static NodeClassArchive make() {
    long started = System.nanoTime();
    NodeClassArchive without = new NodeClassArchive(testClasspath(), List.of());
    try {
      Path dir = Files.createTempDirectory("quorumkv-class-archive");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(dir)));
      String jarredClasspath = jarDirectories(dir);
      Path archive = dir.resolve(FILE);
      archiveOneNodeStart(dir, jarredClasspath, archive);
      if (!Files.isRegularFile(archive)) {
        System.out.println("NodeClassArchive: no archive was written; nodes start without one");
        return without;
      }
      System.out.printf("NodeClassArchive: %s made in %d ms%n", archive, (System.nanoTime() - started) / 1_000_000);
      return new NodeClassArchive(jarredClasspath, List.of("-XX:SharedArchiveFile=" + archive));
    } catch (IOException | InterruptedException | AssertionError e) {
      System.out.println("NodeClassArchive: nodes start without an archive: " + e);
      return without;
    }
  }

  private static String testClasspath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  /** The test class path with each directory replaced by a jar of its contents, written in {@code dir}. */
  private static String jarDirectories(Path dir) throws IOException {
    List<String> entries = new ArrayList<>();
    for (String entry : testClasspath().split(File.pathSeparator)) {
      Path path = Path.of(entry);
      if (Files.isDirectory(path)) {
        Path jar = dir.resolve("classpath-" + entries.size() + ".jar");
        writeJar(path, jar);
        entries.add(jar.toString());
      } else {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  private static void writeJar(Path root, Path jar) throws IOException {
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
         Stream<Path> files = Files.walk(root)) {
      for (Path path : (Iterable<Path>) files.filter(path -> !path.equals(root))::iterator) {
        String name = root.relativize(path).toString().replace(File.separatorChar, '/');
        boolean directory = Files.isDirectory(path);
        out.putNextEntry(new JarEntry(directory ? name + "/" : name));
        if (!directory) {
          Files.copy(path, out);
        }
        out.closeEntry();
      }
    }
  }

  private static void archiveOneNodeStart(Path dir, String classpath, Path archive)
      throws IOException, InterruptedException {
    List<Integer> ports = TestCluster.freePorts(2);
    String url = "http://127.0.0.1:" + ports.get(0);
    JsonObject conf = new JsonObject()
        .put("url", url)
        .put("cluster", new JsonArray().add(url))
        .put("dataDir", NodeProcess.jsonPath(dir.resolve("data")))
        .put("hazelcast", new JsonObject().put("port", ports.get(1))
            .put("members", new JsonArray().add("127.0.0.1:" + ports.get(1)))
            .put("clusterName", "class-archive-" + UUID.randomUUID()));
    Path confFile = NodeProcess.writeConf(dir, "node.json", conf.encodePrettily());
    NodeProcess node = NodeProcess.launchUnarchived(dir.resolve("node.log"), classpath,
        List.of("-XX:ArchiveClassesAtExit=" + archive), "--config", confFile.toString());
    try {
      node.awaitReady();
      Http http = node.http();
      HttpResponse<byte[]> put = http.put("/v0/entity?id=archive", "v");
      HttpResponse<byte[]> get = http.get("/v0/entity?id=archive");
      if (put.statusCode() != 201 || get.statusCode() != 200) {
        throw new AssertionError("the archiving node answered " + put.statusCode() + " and " + get.statusCode());
      }
    } finally {
      node.terminate();
    }
  }

  private static void deleteQuietly(Path dir) {
    try {
      TestFiles.deleteTree(dir);
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory left behind is no test's concern
    }
  }
}
