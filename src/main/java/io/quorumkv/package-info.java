/**
 * A quorumkv node: {@link io.quorumkv.Main} is the command line (a node, or {@code bench} for the
 * load tool); {@link io.quorumkv.Node} opens storage, starts the clock and deploys the verticles in
 * order (storage workers, {@link io.quorumkv.MaintenanceVerticle} for timers and hint replay, one
 * HTTP verticle per event loop), and stops them in reverse. Layers below, each a package:
 * {@code http} takes requests, {@code replication} coordinates them over the replicas,
 * {@code range} merges every node's records for a cluster-wide range,
 * {@code hints} keeps missed writes, {@code storage} is RocksDB on worker threads,
 * {@code cluster} says who is alive and where keys live, {@code versioning} issues versions;
 * {@code admin} (JFR, metrics) and {@code config} serve them all. See docs/architecture.md.
 */
package io.quorumkv;
