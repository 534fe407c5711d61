/**
 * A quorumkv node. {@link io.quorumkv.Main} is the command line (a node, or {@code bench} for the
 * load tool); {@link io.quorumkv.Node} wires the parts and orders their start (a Vert.x from
 * {@code Bootstrap}, RocksDB, the clock, the agreed topology, the storage workers, the
 * {@link io.quorumkv.MaintenanceVerticle} for timers and hint replay, one HTTP verticle per event
 * loop) and their stop, in reverse; {@code Routes} lists what the HTTP verticles serve beside the
 * public API. Each HTTP verticle's event loop gets its {@code LoopServices} (coordinator, conditional
 * writes, cluster range), built once on it and handed to the public API and the mounts that need them. The packages are layers, each using only those below it (docs/architecture.md, checked
 * by {@code ArchitectureTest}): {@code bench}, {@code admin}, {@code ui}, {@code http},
 * {@code topology}, {@code range}, {@code antientropy}, {@code hints}, {@code replication},
 * {@code peer}, {@code web}, {@code cluster}, {@code admission}, {@code storage}, {@code placement},
 * {@code config}, {@code versioning}.
 */
package io.quorumkv;
