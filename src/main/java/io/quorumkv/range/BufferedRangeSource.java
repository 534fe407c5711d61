package io.quorumkv.range;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RangeEntry;

import java.util.ArrayDeque;
import java.util.Collection;

/**
 * A {@link RangeSource}'s buffer and states: the records fetched and not yet taken, whether the
 * end arrived, and closed or failed, each telling the listener once. A subclass only fetches:
 * it starts in {@link #open}, hands over what arrives through {@link #arrived}, its trouble
 * through {@link #fail}, paces itself in {@link #taken} and lets go in {@link #abandon}.
 */
abstract class BufferedRangeSource implements RangeSource {
  private final NodeUrl node;
  private final ArrayDeque<RangeEntry> buffered = new ArrayDeque<>();
  private Listener listener;
  private boolean started;
  private boolean ended;
  private boolean closed;
  private boolean failed;

  BufferedRangeSource(NodeUrl node) {
    this.node = node;
  }

  /** Starts fetching (opens the cursor, sends the request); the listener is set. */
  abstract void open();

  /** A record was taken; {@link #bufferedRecords} are left. */
  abstract void taken(RangeEntry entry);

  /** Drops the cursor or the connection: the source was closed. */
  abstract void abandon();

  @Override
  public final NodeUrl node() {
    return node;
  }

  @Override
  public final void start(Listener listener) {
    this.listener = listener;
    open();
  }

  @Override
  public final RangeEntry peek() {
    return buffered.peek();
  }

  @Override
  public final RangeEntry poll() {
    RangeEntry entry = buffered.poll();
    taken(entry);
    return entry;
  }

  @Override
  public final boolean exhausted() {
    return ended && buffered.isEmpty();
  }

  @Override
  public final boolean started() {
    return started;
  }

  @Override
  public final void close() {
    if (closed) {
      return;
    }
    closed = true;
    buffered.clear();
    abandon();
  }

  /** Buffers records that arrived, and the end if it came with them; the listener hears of them if it had none. */
  final void arrived(Collection<RangeEntry> entries, boolean end) {
    boolean wasEmpty = buffered.isEmpty();
    buffered.addAll(entries);
    started = true;
    ended |= end;
    if (wasEmpty && (end || !buffered.isEmpty())) {
      listener.ready();
    }
  }

  /** Tells the listener the source cannot go on, unless it failed already or was closed. */
  final void fail(String reason) {
    if (!failed && !closed) {
      failed = true;
      listener.failed(this, new RangeSourceException(this + ": " + reason));
    }
  }

  final int bufferedRecords() {
    return buffered.size();
  }

  final boolean ended() {
    return ended;
  }

  final boolean closed() {
    return closed;
  }

  /** Neither closed nor failed. */
  final boolean live() {
    return !closed && !failed;
  }

  /** The source as failures name it: its node. */
  @Override
  public String toString() {
    return node.toString();
  }

  static String describe(Throwable failure) {
    String message = failure.getMessage();
    return message == null ? failure.getClass().getSimpleName() : message;
  }
}
