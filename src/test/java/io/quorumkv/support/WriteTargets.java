package io.quorumkv.support;

/** The nodes a load sends its requests through, changed as nodes join and leave a running cluster. */
public interface WriteTargets {
  /** From now on, also send through this node ({@code node} is its index in the {@link ProcessCluster}). */
  void add(int node, String url);

  /** From now on, send nothing more through this node. */
  void remove(int node);
}
