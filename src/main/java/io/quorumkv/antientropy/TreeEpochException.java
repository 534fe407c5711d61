package io.quorumkv.antientropy;

/** An exchange between trees shaped for different topology epochs: it would compare different key sets. */
public final class TreeEpochException extends RuntimeException {
  TreeEpochException(long ours, long theirs) {
    super("this node's trees are shaped for topology epoch " + ours + ", not " + theirs, null, false, false);
  }
}
