package io.quorumkv.replication;

import io.quorumkv.admission.ByteBudget;
import io.quorumkv.replication.RecordBatchCodec.Operation;
import io.quorumkv.web.ApiErrors;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
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
    ctx.request().toNetSocket().onSuccess(socket -> serve(vertx, socket)).onFailure(ctx::fail);
  }

  private void serve(Vertx vertx, NetSocket socket) {
    Stream stream = new Stream(vertx, socket);
    BatchFrames.Reader reader = BatchFrames.reader(maxFrameBytes, new BatchFrames.Gate() {
      @Override
      public boolean tryAdmit(int length) {
        return budget.tryAcquire(costOf(length));
      }

      @Override
      public void abandoned(int length) {
        budget.release(costOf(length));
      }
    }, stream, (id, operations) -> answer(stream, id, operations), malformed -> socket.close());
    socket.handler(reader);
    socket.closeHandler(closed -> reader.closed());
    // Coordinators keep their streams open, so a stopping node would otherwise wait out its whole shutdown timeout.
    socket.shutdownHandler(stopping -> stream.closeWhenAnswered());
  }

  /** What a frame holds of the heap until it is answered: itself, the records decoded from it, and their encoding for the disk. */
  static long costOf(int frameLength) {
    return (long) frameLength * HEAP_COPIES_PER_FRAME;
  }

  private void answer(Stream stream, long id, Buffer encoded) {
    NetSocket socket = stream.socket;
    long held = costOf(encoded.length() + BatchFrames.ID_BYTES);
    List<Operation> operations;
    try {
      operations = RecordBatchCodec.decodeOperations(encoded, InternalProtocol.MAX_BATCH_OPERATIONS);
    } catch (IllegalArgumentException | RecordBatchCodec.TooManyOperationsException e) {
      budget.release(held);
      socket.close();
      return;
    }
    stream.answering.incrementAndGet();
    batches.answersTo(operations).onSuccess(answers -> {
      BatchFrames.write(socket, id, RecordBatchCodec.encodeAnswersInParts(answers));
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
  private static final class Stream implements BatchFrames.PausableSource {
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
