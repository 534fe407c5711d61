package io.quorumkv.antientropy;

import io.quorumkv.storage.IndexEntry;
import io.quorumkv.storage.RecordDigest;
import io.vertx.core.buffer.Buffer;

import java.util.ArrayList;
import java.util.List;

/**
 * The internal endpoints of an exchange ({@code TREE_*} in {@code peer.InternalEndpoint}), each asked by the initiating node with {@code peer=} its
 * own URL (which tree of the answering node's is meant) and {@code epoch=} the topology epoch its
 * trees are shaped for: an answerer whose trees are shaped for another epoch answers {@code 409},
 * since the two sides would compare different key sets. Bodies are binary, big-endian.
 * <pre>
 * GET  TREE_ROOT?peer=P&amp;root=R      → started at (long, answerer's millis, {@code WriteClock}) | root (long)
 *                                     | if the root differs from R: the 256 branch digests (long each)
 * POST TREE_SEGMENTS?peer=P  branches (unsigned short each) → 256 segment digests per branch, in order
 * POST TREE_KEYS?peer=P      segments (unsigned short each) → per record shared with P in those
 *                                     segments: key length (int) | key | leaf digest (long)
 * POST TREE_DONE?peer=P&amp;since=S    → 204: the exchange that started at S (the answerer's own
 *                                     millis, from TREE_ROOT) repaired every difference
 * </pre>
 */
public final class TreeProtocol {
  /** Largest request body: every segment's index. */
  public static final int MAX_REQUEST_BYTES = 2 * RecordDigest.SEGMENTS;

  private TreeProtocol() {
  }

  /** The answer to TREE_ROOT; {@code branches} null when the roots matched. */
  public record RootAnswer(long startedAt, long root, long[] branches) {
  }

  /** A key the other side holds, with its leaf digest. */
  public record KeyDigest(byte[] key, long leaf) {
  }

  public static Buffer encodeRoot(RootAnswer answer) {
    Buffer out = Buffer.buffer().appendLong(answer.startedAt()).appendLong(answer.root());
    if (answer.branches() != null) {
      appendLongs(out, answer.branches());
    }
    return out;
  }

  public static RootAnswer decodeRoot(Buffer in) {
    if (in.length() != 16 && in.length() != 16 + HashTree.BRANCHES * 8) {
      throw new IllegalArgumentException("a tree root answer of " + in.length() + " bytes");
    }
    long[] branches = in.length() == 16 ? null : readLongs(in, 16, HashTree.BRANCHES);
    return new RootAnswer(in.getLong(0), in.getLong(8), branches);
  }

  /** Indexes of branches or segments as a request body. */
  public static Buffer encodeIndexes(int[] indexes) {
    Buffer out = Buffer.buffer(indexes.length * 2);
    for (int index : indexes) {
      out.appendUnsignedShort(index);
    }
    return out;
  }

  /** IllegalArgumentException when the body is malformed or an index is not below {@code bound}. */
  public static int[] decodeIndexes(Buffer in, int bound) {
    if (in.length() % 2 != 0) {
      throw new IllegalArgumentException("an odd body length of " + in.length() + " bytes");
    }
    int[] indexes = new int[in.length() / 2];
    for (int i = 0; i < indexes.length; i++) {
      indexes[i] = in.getUnsignedShort(i * 2);
      if (indexes[i] >= bound) {
        throw new IllegalArgumentException("index " + indexes[i] + " is not below " + bound);
      }
    }
    return indexes;
  }

  public static Buffer encodeSegments(List<long[]> perBranch) {
    Buffer out = Buffer.buffer(perBranch.size() * HashTree.SEGMENTS_PER_BRANCH * 8);
    perBranch.forEach(segments -> appendLongs(out, segments));
    return out;
  }

  /** The segment digests of {@code branches} branches, one array per branch. */
  public static List<long[]> decodeSegments(Buffer in, int branches) {
    if (in.length() != branches * HashTree.SEGMENTS_PER_BRANCH * 8) {
      throw new IllegalArgumentException("segment digests of " + in.length() + " bytes for " + branches + " branches");
    }
    List<long[]> perBranch = new ArrayList<>(branches);
    for (int b = 0; b < branches; b++) {
      perBranch.add(readLongs(in, b * HashTree.SEGMENTS_PER_BRANCH * 8, HashTree.SEGMENTS_PER_BRANCH));
    }
    return perBranch;
  }

  public static Buffer encodeKeys(List<IndexEntry> entries) {
    Buffer out = Buffer.buffer();
    for (IndexEntry entry : entries) {
      out.appendInt(entry.key().length).appendBytes(entry.key()).appendLong(entry.leaf());
    }
    return out;
  }

  public static List<KeyDigest> decodeKeys(Buffer in) {
    List<KeyDigest> keys = new ArrayList<>();
    int position = 0;
    while (position < in.length()) {
      if (in.length() - position < 4) {
        throw new IllegalArgumentException("a key digest cut short");
      }
      int length = in.getInt(position);
      if (length < 0 || in.length() - position - 4 < (long) length + 8) {
        throw new IllegalArgumentException("a key digest cut short");
      }
      byte[] key = in.getBytes(position + 4, position + 4 + length);
      keys.add(new KeyDigest(key, in.getLong(position + 4 + length)));
      position += 4 + length + 8;
    }
    return keys;
  }

  private static void appendLongs(Buffer out, long[] values) {
    for (long value : values) {
      out.appendLong(value);
    }
  }

  private static long[] readLongs(Buffer in, int offset, int count) {
    long[] values = new long[count];
    for (int i = 0; i < count; i++) {
      values[i] = in.getLong(offset + i * 8);
    }
    return values;
  }
}
