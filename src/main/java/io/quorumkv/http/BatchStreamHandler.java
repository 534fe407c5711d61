package io.quorumkv.http;

import io.quorumkv.replication.BatchFrames;
import io.quorumkv.replication.InternalProtocol;
import io.quorumkv.replication.RecordBatchCodec;
import io.quorumkv.replication.RecordBatchCodec.Operation;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The replica side of a batch stream ({@link InternalProtocol#STREAM_PATH}): upgrades the
 * connection, then answers each batch frame as {@link InternalHandler#batch} answers a
 * {@code POST}, in the order the answers are ready. A malformed frame closes the connection:
 * coordinators never send one, and nothing after it could be trusted.
 */
final class BatchStreamHandler {
  private final InternalHandler batches;
  private final int maxFrameBytes;

  BatchStreamHandler(InternalHandler batches, long maxBatchBytes) {
    this.batches = batches;
    this.maxFrameBytes = (int) Math.min(maxBatchBytes, Integer.MAX_VALUE - 64);
  }

  /** Behind {@link InternalHandler#authorize}: only a coordinator with the cluster secret gets a stream. */
  void upgrade(RoutingContext ctx) {
    if (!InternalProtocol.STREAM_UPGRADE.equalsIgnoreCase(ctx.request().getHeader(HttpHeaders.UPGRADE))) {
      ApiErrors.send(ctx, 400, "expected Upgrade: " + InternalProtocol.STREAM_UPGRADE);
      return;
    }
    ctx.request().toNetSocket().onSuccess(this::serve).onFailure(ctx::fail);
  }

  private void serve(NetSocket socket) {
    Stream stream = new Stream(socket);
    socket.handler(BatchFrames.reader(maxFrameBytes, (id, operations) -> answer(stream, id, operations),
        malformed -> socket.close()));
    // Coordinators keep their streams open, so a stopping node would otherwise wait out its whole shutdown timeout.
    socket.shutdownHandler(stopping -> stream.closeWhenAnswered());
  }

  private void answer(Stream stream, long id, Buffer encoded) {
    NetSocket socket = stream.socket;
    List<Operation> operations;
    try {
      operations = RecordBatchCodec.decodeOperations(encoded, InternalProtocol.MAX_BATCH_OPERATIONS);
    } catch (IllegalArgumentException | RecordBatchCodec.TooManyOperationsException e) {
      socket.close();
      return;
    }
    stream.answering.incrementAndGet();
    batches.answersTo(operations).onSuccess(answers -> {
      socket.write(BatchFrames.frame(id, answers));
      if (socket.writeQueueFull()) {
        socket.pause();
        socket.drainHandler(drained -> socket.resume());
      }
      stream.answered();
    });
  }

  /** One stream, and how many of its batches are being answered; once the node stops, it closes when none is. */
  private static final class Stream {
    private final NetSocket socket;
    private final AtomicInteger answering = new AtomicInteger();
    private volatile boolean closing;

    Stream(NetSocket socket) {
      this.socket = socket;
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
