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
    socket.handler(BatchFrames.reader(maxFrameBytes, (id, operations) -> answer(socket, id, operations),
        malformed -> socket.close()));
  }

  private void answer(NetSocket socket, long id, Buffer encoded) {
    List<Operation> operations;
    try {
      operations = RecordBatchCodec.decodeOperations(encoded, InternalProtocol.MAX_BATCH_OPERATIONS);
    } catch (IllegalArgumentException | RecordBatchCodec.TooManyOperationsException e) {
      socket.close();
      return;
    }
    batches.answersTo(operations).onSuccess(answers -> {
      socket.write(BatchFrames.frame(id, answers));
      if (socket.writeQueueFull()) {
        socket.pause();
        socket.drainHandler(drained -> socket.resume());
      }
    });
  }
}
