package io.quorumkv.range;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint.Timeout;
import io.quorumkv.replication.ClientErrors;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.web.ApiErrors;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.time.InstantSource;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Drives one cluster-wide range on the request's event loop: merges the nodes' sources into the
 * chunked response, one chunk per live record (as the range's format makes it), only while every unfinished source has a record
 * buffered and the response's write queue has room. So a slow client stops the merge, the merge
 * stops taking records, each source stops reading (a remote one pauses its connection) and every
 * node's scan waits. A source failing before the first byte answers 504; after it, the response
 * is reset, so the client never sees the final chunk. Every source is closed however it ends. Serves
 * {@code /v0/entities?scope=cluster} and a restore's list of the cluster's keys.
 */
public final class ClusterRangeStream implements RangeSource.Listener {
  private static final System.Logger LOG = System.getLogger(ClusterRangeStream.class.getName());

  private final Vertx vertx;
  private final RoutingContext ctx;
  private final HttpServerResponse response;
  private final List<RangeSource> sources;
  private final RangeMerge merge;
  private final InstantSource wallClock;
  private final Function<RangeEntry, Buffer> chunkOf;
  private RangeSource timed;
  private long timer = -1;
  private RangeSourceException failure;
  private boolean pumping;
  private boolean again;
  private boolean finished;

  private ClusterRangeStream(Vertx vertx, RoutingContext ctx, List<RangeSource> sources, InstantSource wallClock,
                             Function<RangeEntry, Buffer> chunkOf) {
    this.vertx = vertx;
    this.ctx = ctx;
    this.response = ctx.response();
    this.sources = sources;
    this.merge = new RangeMerge(sources);
    this.wallClock = wallClock;
    this.chunkOf = chunkOf;
  }

  /**
   * Streams the cluster's live records in {@code [start, end)} as {@code chunkOf} writes each; 504 at
   * once when membership sees a node of the topology down.
   */
  public static void serve(Vertx vertx, RoutingContext ctx, ClusterRange cluster, byte[] start, byte[] end,
                    InstantSource wallClock, Function<RangeEntry, Buffer> chunkOf) {
    List<NodeUrl> down = cluster.down();
    if (!down.isEmpty()) {
      ctx.response().setStatusMessage(ClientErrors.NOT_ENOUGH_REPLICAS);
      ApiErrors.send(ctx, 504, "cluster range needs every node: " + (cluster.nodes() - down.size()) + " of "
          + cluster.nodes() + " alive (down: " + down.stream().map(NodeUrl::toString).collect(Collectors.joining(", "))
          + ")");
      return;
    }
    new ClusterRangeStream(vertx, ctx, cluster.sources(start, end), wallClock, chunkOf).start();
  }

  void start() {
    response.closeHandler(closed -> finish());
    response.drainHandler(drained -> pump());
    for (RangeSource source : sources) {
      source.start(this);
    }
    pump();
  }

  @Override
  public void ready() {
    pump();
  }

  @Override
  public void failed(RangeSource source, Throwable cause) {
    if (failure == null) {
      failure = cause instanceof RangeSourceException sourceFailure
          ? sourceFailure : new RangeSourceException(source.node() + ": " + cause.getMessage());
    }
    pump();
  }

  /** Merges as far as the sources and the client allow; re-entered calls (a source's news while merging) loop instead. */
  private void pump() {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        merge();
      } while (again && !finished);
    } finally {
      pumping = false;
    }
  }

  private void merge() {
    long now = wallClock.millis();
    while (!finished) {
      if (failure != null) {
        abort(failure);
        return;
      }
      if (response.writeQueueFull()) {
        return; // the drain handler pumps again
      }
      RangeSource waiting = merge.waitingFor();
      if (waiting != null) {
        awaitData(waiting);
        return;
      }
      RangeEntry next = merge.next();
      cancelTimer();
      if (next == null) {
        response.end();
        finish();
        return;
      }
      if (next.record().isLive(now)) {
        response.write(chunkOf.apply(next));
      }
    }
  }

  /** Arms the open or idle timeout for the source the merge waits on (kept while it waits on the same one). */
  private void awaitData(RangeSource source) {
    if (timed == source) {
      return;
    }
    cancelTimer();
    timed = source;
    long timeoutMs = source.started() ? Timeout.STREAM_IDLE_MS : Timeout.STREAM_OPEN_MS;
    timer = vertx.setTimer(timeoutMs, fired -> {
      timer = -1;
      if (!finished && merge.waitingFor() == source) {
        failed(source, new RangeSourceException(source.node() + ": "
            + (source.started() ? "no data for " : "no answer within ") + timeoutMs + " ms"));
      }
    });
  }

  private void cancelTimer() {
    timed = null;
    if (timer != -1) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void abort(RangeSourceException cause) {
    boolean answered = response.headWritten();
    finish();
    if (answered) {
      LOG.log(System.Logger.Level.WARNING, "cluster range cut short, connection reset: " + cause.getMessage());
      response.reset();
    } else {
      response.setStatusMessage(ClientErrors.NOT_ENOUGH_REPLICAS);
      ApiErrors.send(ctx, 504, "cluster range needs every node: " + cause.getMessage());
    }
  }

  private void finish() {
    if (!finished) {
      finished = true;
      cancelTimer();
      sources.forEach(RangeSource::close);
    }
  }
}
