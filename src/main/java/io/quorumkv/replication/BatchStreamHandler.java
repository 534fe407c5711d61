package io.quorumkv.replication;

import io.quorumkv.admission.ByteBudget;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.ConnectionErrors;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.BatchOperations.Operation;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.FrameReader;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The replica side of a batch stream ({@code peer.InternalEndpoint.RECORD_STREAM}): upgrades the
 * connection, then answers each batch frame as {@link InternalHandler#batch} answers a
 * {@code POST}, in the order the answers are ready. A malformed frame closes the connection:
 * coordinators never send one, and nothing after it could be trusted. A frame is read only once
 * the peers' byte budget has room for it, and counts against it until it is answered; until then
 * the stream is read no further (its sender's writes wait in the socket, they are never refused).
 */
final class BatchStreamHandler {
  private static final System.Logger LOG = System.getLogger(BatchStreamHandler.class.getName());
  /**
   * A large value is on the heap twice at once: the frame and the record decoded from it, then
   * (the frame gone) the record and its encoding for RocksDB.
   */
  private static final int HEAP_COPIES_PER_FRAME = 2;

  private final InternalHandler batches;
  private final int maxFrameBytes;
  private final ByteBudget budget;

  BatchStreamHandler(InternalHandler batches, long maxBatchBytes, ByteBudget budget) {
    this.batches = batches;
    this.maxFrameBytes = (int) Math.min(maxBatchBytes, Integer.MAX_VALUE - 64);
    this.budget = budget;
  }

  /** Behind the cluster secret: only a coordinator that has it gets a stream. */
  void upgrade(RoutingContext ctx) {
    if (!InternalProtocol.STREAM_UPGRADE.equalsIgnoreCase(ctx.request().getHeader(HttpHeaders.UPGRADE))) {
      ApiErrors.send(ctx, 400, "expected Upgrade: " + InternalProtocol.STREAM_UPGRADE);
      return;
    }
    Vertx vertx = ctx.vertx();
    ctx.response().putHeader(InternalProtocol.DIGESTS_HEADER, "1");
    ctx.request().toNetSocket().onSuccess(socket -> serve(vertx, socket)).onFailure(ctx::fail);
  }

  private void serve(Vertx vertx, NetSocket socket) {
    Stream stream = new Stream(vertx, socket);
    FrameReader reader = FrameReader.gated(maxFrameBytes, new FrameReader.Gate() {
      @Override
      public boolean tryAdmit(int length) {
        return budget.tryAcquire(costOf(length));
      }

      @Override
      public void abandoned(int length) {
        budget.release(costOf(length));
      }
    }, stream, frame -> answer(stream, frame), malformed -> refuse(socket, malformed));
    socket.handler(reader);
    socket.exceptionHandler(ConnectionErrors.logged("batch stream from " + socket.remoteAddress()));
    socket.closeHandler(closed -> reader.closed());
    // Coordinators keep their streams open, so a stopping node would otherwise wait out its whole shutdown timeout.
    socket.shutdownHandler(stopping -> stream.closeWhenAnswered());
  }

  /** What a frame holds of the heap until it is answered: itself, the records decoded from it, and their encoding for the disk. */
  static long costOf(int frameLength) {
    return (long) frameLength * HEAP_COPIES_PER_FRAME;
  }

  /** Closes a stream whose frame cannot be read (another format version, say), saying why in the log. */
  private static void refuse(NetSocket socket, String why) {
    LOG.log(System.Logger.Level.WARNING, "batch stream from " + socket.remoteAddress() + " closed: " + why);
    socket.close();
  }

  private void answer(Stream stream, Frame frame) {
    NetSocket socket = stream.socket;
    long id = frame.id();
    long held = costOf(frame.payload().length());
    List<Operation> operations;
    try {
      if (frame.kind() != Frame.Kind.OPERATIONS) {
        throw new IllegalArgumentException("frame of kind " + frame.kind() + ", expected OPERATIONS");
      }
      operations = BatchOperations.decodePayload(frame.payload(), InternalProtocol.MAX_BATCH_OPERATIONS);
    } catch (IllegalArgumentException | BatchOperations.TooManyOperationsException e) {
      budget.release(held);
      refuse(socket, e.getMessage());
      return;
    }
    stream.answering.incrementAndGet();
    batches.answersTo(operations).onSuccess(answers -> {
      Frame.write(socket, Frame.Kind.ANSWERS, id, BatchAnswers.payloadInParts(answers));
      if (socket.writeQueueFull()) {
        stream.writeBackedUp = true;
        socket.pause();
        socket.drainHandler(drained -> stream.drained());
      }
    }).onComplete(done -> {
      budget.release(held);
      stream.answered();
    });
  }

  /**
   * One stream, and how many of its batches are being answered; once the node stops, it closes
   * when none is. Paused while its answers back up or its next frame waits for the budget; used
   * on its event loop.
   */
  private static final class Stream implements FrameReader.PausableSource {
    private final Vertx vertx;
    private final NetSocket socket;
    private final AtomicInteger answering = new AtomicInteger();
    private volatile boolean closing;
    private boolean heldBack;
    private boolean writeBackedUp;

    Stream(Vertx vertx, NetSocket socket) {
      this.vertx = vertx;
      this.socket = socket;
    }

    @Override
    public void pause() {
      heldBack = true;
      socket.pause();
    }

    @Override
    public void resume() {
      heldBack = false;
      if (!writeBackedUp) {
        socket.resume();
      }
    }

    void drained() {
      writeBackedUp = false;
      if (!heldBack) {
        socket.resume();
      }
    }

    @Override
    public void later(long delayMs, Runnable action) {
      vertx.setTimer(delayMs, fired -> action.run());
    }

    void answered() {
      if (answering.decrementAndGet() == 0 && closing) {
        socket.close();
      }
    }

    void closeWhenAnswered() {
      closing = true;
      if (answering.get() == 0) {
        socket.close();
      }
    }
  }
}
