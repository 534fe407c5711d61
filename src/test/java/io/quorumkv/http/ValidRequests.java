package io.quorumkv.http;

import io.quorumkv.admin.AdminApi;
import io.quorumkv.antientropy.HashTree;
import io.quorumkv.antientropy.TreeProtocol;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.RecordHeaders;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.RecordDigest;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.ApiHeaders;
import io.quorumkv.wire.BatchOperations;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.quorumkv.http.RandomRequests.pick;

/**
 * Valid requests of every endpoint of a single node whose conf sets a cluster secret and an admin
 * token: entities, ranges, status, cluster, metrics, the JFR admin endpoints and the internal
 * ones (one record with its metadata headers, a binary batch, the anti-entropy tree requests). The mutator starts from these.
 * JFR recordings have a few names and mostly short durations, so they stay small and few.
 */
final class ValidRequests {
  /** A valid request and what it is, for failure messages ("PUT /v0/entity"). */
  record Valid(RequestParts parts, String label) {
  }

  private enum Endpoint {
    ENTITY_GET(180), ENTITY_PUT(180), ENTITY_DELETE(80), RANGE(60), STATUS(40), CLUSTER(30), METRICS(20),
    RECORD_GET(80), RECORD_PUT(100), BATCH(150), TREE_ROOT(10), TREE_SEGMENTS(10), TREE_KEYS(10), TREE_DONE(10),
    JFR_START(12), JFR_LIST(8), JFR_STOP(10), JFR_FILE(5), JFR_FLAME(5);

    /** Out of the sum of all weights (1,000). */
    final int weight;

    Endpoint(int weight) {
      this.weight = weight;
    }
  }

  private static final int TOTAL_WEIGHT = java.util.Arrays.stream(Endpoint.values()).mapToInt(e -> e.weight).sum();
  /** Ids as a client writes them, percent-encoded where needed. */
  private static final String[] SPECIAL_IDS = {"%C3%A9t%C3%A9", "a%2Fb%3Fc", "space%20key", "semi;colon", "x%00y",
      "%F0%9F%98%80"};
  /** The names of the recordings valid requests start, stop and read. */
  static final java.util.Set<String> RECORDING_NAME_SET = java.util.Set.of("fz0", "fz1", "fz2", "fz3");
  private static final String[] RECORDING_NAMES = RECORDING_NAME_SET.stream().sorted().toArray(String[]::new);
  private static final String[] FLAME_TYPES = {"cpu", "alloc", "lock", "wall"};
  private static final int KEYS = 64;

  private final String adminToken;
  private final String clusterSecret;
  private final int bodyLimit;

  ValidRequests(String adminToken, String clusterSecret, int bodyLimit) {
    this.adminToken = adminToken;
    this.clusterSecret = clusterSecret;
    this.bodyLimit = bodyLimit;
  }

  Valid next(Random random) {
    Endpoint endpoint = endpoint(random);
    RequestParts parts = switch (endpoint) {
      case ENTITY_GET -> quorum(random, get(ApiRouter.ENTITY).param("id", id(random)));
      case ENTITY_PUT -> {
        RequestParts put = quorum(random, new RequestParts("PUT", ApiRouter.ENTITY).param("id", id(random)));
        if (random.nextInt(5) == 0) {
          put.param("ttl", Integer.toString(1 + random.nextInt(100_000)));
        }
        yield withBody(random, host(put), value(random));
      }
      case ENTITY_DELETE -> quorum(random, host(new RequestParts("DELETE", ApiRouter.ENTITY)).param("id", id(random)));
      case RANGE -> range(random);
      case STATUS -> get(ApiRouter.STATUS);
      case CLUSTER -> get(ApiRouter.CLUSTER);
      case METRICS -> get("/metrics");
      case RECORD_GET -> internal(get(InternalEndpoint.RECORD_GET.path())).param("id", id(random));
      case RECORD_PUT -> recordPut(random);
      case BATCH -> withBatch(random, internal(host(new RequestParts("POST", InternalEndpoint.RECORD_BATCH.path()))));
      case TREE_ROOT -> peer(random, internal(get(InternalEndpoint.TREE_ROOT.path()))).param("root", Long.toString(random.nextLong()));
      case TREE_SEGMENTS -> withIndexes(random, peer(random, internal(host(new RequestParts("POST",
          InternalEndpoint.TREE_SEGMENTS.path())))), HashTree.BRANCHES);
      case TREE_KEYS -> withIndexes(random, peer(random, internal(host(new RequestParts("POST",
          InternalEndpoint.TREE_KEYS.path())))), RecordDigest.SEGMENTS);
      case TREE_DONE -> peer(random, internal(host(new RequestParts("POST", InternalEndpoint.TREE_DONE.path()))))
          .param("since", Long.toString(System.currentTimeMillis() - random.nextInt(60_000)));
      case JFR_START -> jfrStart(random);
      case JFR_LIST -> admin(get(AdminApi.PATH));
      case JFR_STOP -> scope(random, admin(host(new RequestParts("POST", AdminApi.PATH + "/stop")))
          .param("name", pick(random, RECORDING_NAMES)));
      case JFR_FILE -> admin(get(AdminApi.PATH + "/file")).param("name", pick(random, RECORDING_NAMES));
      case JFR_FLAME -> {
        RequestParts flame = admin(get(AdminApi.PATH + "/flame")).param("name", pick(random, RECORDING_NAMES));
        yield random.nextInt(4) == 0 ? flame : flame.param("type", pick(random, FLAME_TYPES));
      }
    };
    return new Valid(parts, parts.method + " " + parts.path);
  }

  private static Endpoint endpoint(Random random) {
    int at = random.nextInt(TOTAL_WEIGHT);
    for (Endpoint endpoint : Endpoint.values()) {
      at -= endpoint.weight;
      if (at < 0) {
        return endpoint;
      }
    }
    throw new IllegalStateException("weights do not add up");
  }

  private static RequestParts get(String path) {
    return host(new RequestParts("GET", path));
  }

  private static RequestParts host(RequestParts parts) {
    return parts.header("Host", "127.0.0.1");
  }

  private RequestParts admin(RequestParts parts) {
    return parts.header("Authorization", "Bearer " + adminToken);
  }

  private RequestParts internal(RequestParts parts) {
    return parts.header(InternalEndpoint.SECRET_HEADER, clusterSecret);
  }

  /** ack and from of a single node: both 1 when given. */
  private static RequestParts quorum(Random random, RequestParts parts) {
    switch (random.nextInt(4)) {
      case 0 -> parts.param("ack", "1");
      case 1 -> parts.param("ack", "1").param("from", "1");
      case 2 -> parts.param("from", "1");
      default -> {
        // the defaults
      }
    }
    return parts;
  }

  /**
   * An anti-entropy request as another node sends it. The fuzzed node is alone in its topology,
   * so every such request names a peer it does not know (400): what is fuzzed is the parsing.
   */
  private static RequestParts peer(Random random, RequestParts parts) {
    return parts.param("peer", "http://127.0.0." + (1 + random.nextInt(3)) + ":" + (8080 + random.nextInt(3)))
        .param("epoch", Integer.toString(random.nextInt(3)));
  }

  private static RequestParts withIndexes(Random random, RequestParts post, int bound) {
    int[] indexes = new int[1 + random.nextInt(16)];
    for (int i = 0; i < indexes.length; i++) {
      indexes[i] = random.nextInt(bound);
    }
    return withBody(random, post, TreeProtocol.encodeIndexes(indexes).getBytes());
  }

  private static RequestParts scope(Random random, RequestParts parts) {
    return random.nextInt(10) == 0 ? parts.param("scope", random.nextInt(3) == 0 ? "cluster" : "node") : parts;
  }

  static String id(Random random) {
    return random.nextInt(10) == 0 ? pick(random, SPECIAL_IDS) : "k" + random.nextInt(KEYS);
  }

  /** Mostly a short range between two ids; rarely one open to the end of the keys. */
  private static RequestParts range(Random random) {
    int from = random.nextInt(KEYS);
    RequestParts range = get(ApiRouter.ENTITIES).param("start", "k" + from);
    return random.nextInt(100) == 0 ? range : range.param("end", "k" + (from + 1 + random.nextInt(4)));
  }

  private RequestParts recordPut(Random random) {
    RequestParts put = internal(host(new RequestParts("PUT", InternalEndpoint.RECORD_GET.path()))).param("id", id(random));
    Record record = record(random);
    put.header(ApiHeaders.VERSION, Long.toString(record.version()))
        .header(RecordHeaders.TOMBSTONE, record.tombstone() ? "1" : "0")
        .header(RecordHeaders.EXPIRES_AT, Long.toString(record.expiresAt()))
        .header(RecordHeaders.REPLICAS, Integer.toString(record.replicas()));
    return withBody(random, put, record.value());
  }

  private RequestParts withBatch(Random random, RequestParts post) {
    List<BatchOperations.Operation> operations = new ArrayList<>();
    int count = 1 + random.nextInt(8);
    for (int i = 0; i < count; i++) {
      byte[] key = ("k" + random.nextInt(KEYS)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      operations.add(new BatchOperations.Operation(key, random.nextBoolean() ? null : record(random)));
    }
    withBody(random, post, BatchOperations.encode(operations).getBytes());
    post.batch = true;
    return post;
  }

  /**
   * A record as a coordinator sends it: a version from the last ten minutes, sometimes a tombstone
   * or an expiry, a replica count of 1 to 5 (a {@code from}) or rarely every node.
   */
  private Record record(Random random) {
    long millis = System.currentTimeMillis() - random.nextInt(600_000);
    long version = (millis << HybridLogicalClock.COUNTER_BITS) | random.nextInt(1 << HybridLogicalClock.COUNTER_BITS);
    int replicas = random.nextInt(20) == 0 ? Record.EVERY_NODE : 1 + random.nextInt(5);
    if (random.nextInt(6) == 0) {
      return Record.tombstone(version, replicas);
    }
    long expiresAt = random.nextInt(4) == 0 ? millis + random.nextInt(1_200_000) : Record.NEVER;
    return Record.live(version, value(random), expiresAt, replicas);
  }

  private RequestParts jfrStart(Random random) {
    RequestParts start = admin(host(new RequestParts("POST", AdminApi.PATH))).param("name", pick(random, RECORDING_NAMES));
    int kind = random.nextInt(50);
    if (kind > 0) { // without a duration: the default minute, rarely
      start.param("duration", Integer.toString(kind < 40 ? 100 + random.nextInt(1_900) : 2_000 + random.nextInt(8_000)));
    }
    if (random.nextInt(3) == 0) {
      start.param("settings", random.nextBoolean() ? "default" : "profile");
    }
    return scope(random, start);
  }

  /** A value: mostly small, sometimes a few KiB, rarely empty or exactly the body limit. */
  private byte[] value(Random random) {
    int size = switch (random.nextInt(40)) {
      case 0 -> 0;
      case 1 -> bodyLimit;
      default -> random.nextInt(4) == 0 ? 257 + random.nextInt(4_000) : random.nextInt(257);
    };
    byte[] value = new byte[size];
    random.nextBytes(value);
    return value;
  }

  private static RequestParts withBody(Random random, RequestParts parts, byte[] body) {
    parts.body(body, random.nextInt(8) == 0 ? RequestParts.Framing.CHUNKED : RequestParts.Framing.LENGTH);
    parts.chunkSize = 1 + random.nextInt(8_192);
    return parts;
  }
}
