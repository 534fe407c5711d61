package io.quorumkv.http;

import io.quorumkv.replication.ForeignRecords;
import io.quorumkv.replication.InternalProtocol;
import io.quorumkv.replication.RecordBatchCodec;
import io.quorumkv.replication.RecordBatchCodec.Answer;
import io.quorumkv.replication.RecordBatchCodec.Operation;
import io.quorumkv.replication.WriteAnswer;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.ClockException;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * The replica side of {@link InternalProtocol}: reads and applies records in this node's own
 * store, never re-coordinating. With a cluster secret configured, a request without it gets 403.
 */
final class InternalHandler {
  private final StorageService storage;
  private final HybridLogicalClock clock;
  private final byte[] secret;

  InternalHandler(StorageService storage, HybridLogicalClock clock, String secret) {
    this.storage = storage;
    this.clock = clock;
    this.secret = secret == null ? null : secret.getBytes(StandardCharsets.UTF_8);
  }

  /** Lets the request on only if it carries the cluster secret (when one is set). */
  void authorize(RoutingContext ctx) {
    String given = ctx.request().getHeader(InternalProtocol.SECRET);
    if (secret != null && (given == null || !MessageDigest.isEqual(secret, given.getBytes(StandardCharsets.UTF_8)))) {
      ApiErrors.send(ctx, 403, "internal request without the cluster secret");
      return;
    }
    ctx.next();
  }

  void read(RoutingContext ctx) {
    byte[] key = QueryParams.of(ctx).requiredKey("id");
    storage.get(key).onComplete(read -> {
      if (read.failed()) {
        ApiErrors.fail(ctx, read.cause());
        return;
      }
      Record record = read.result();
      if (record == null) {
        ctx.response().setStatusCode(404).end();
        return;
      }
      RecordHeaders.write(record, ctx.response().headers());
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream").end(Buffer.buffer(record.value()));
    });
  }

  /**
   * Runs every operation of a batch (each may succeed or fail alone) and answers them all at once;
   * 413 to more than {@link InternalProtocol#MAX_BATCH_OPERATIONS} operations.
   */
  void batch(RoutingContext ctx) {
    List<Operation> operations;
    try {
      operations = RecordBatchCodec.decodeOperations(Buffer.buffer(RawBodyHandler.bodyOf(ctx)),
          InternalProtocol.MAX_BATCH_OPERATIONS);
    } catch (RecordBatchCodec.TooManyOperationsException e) {
      ApiErrors.send(ctx, 413, e.getMessage());
      return;
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(e.getMessage());
    }
    answersTo(operations).onComplete(answers -> ctx.response()
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream")
        .end(answers.result()));
  }

  /** Runs every operation of a batch (each may succeed or fail alone); completes, never fails, with their answers. */
  Future<Buffer> answersTo(List<Operation> operations) {
    List<Future<Answer>> answers = new ArrayList<>(operations.size());
    for (Operation operation : operations) {
      Future<Answer> answer;
      if (operation.isRead()) {
        answer = storage.get(operation.key()).map(Answer::of);
      } else {
        answer = apply(operation.key(), operation.record())
            .map(kept -> Answer.of(WriteAnswer.of(operation.record(), kept)));
      }
      answers.add(answer.recover(failure -> Future.succeededFuture(failure instanceof ClockException
          ? Answer.refused(failure.getMessage())
          : Answer.failed(String.valueOf(failure.getMessage())))));
    }
    return Future.all(answers)
        .map(all -> RecordBatchCodec.encodeAnswers(answers.stream().map(Future::result).toList()));
  }

  private Future<Record> apply(byte[] key, Record record) {
    return ForeignRecords.apply(clock, storage, key, record);
  }

  /** PUT of one record; 409 when its version is too far ahead of this node's clock. */
  void write(RoutingContext ctx) {
    byte[] key = QueryParams.of(ctx).requiredKey("id");
    Record record;
    try {
      record = RecordHeaders.read(ctx.request().headers(), RawBodyHandler.bodyOf(ctx));
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(e.getMessage());
    }
    apply(key, record).onComplete(applied -> {
      if (applied.failed() && applied.cause() instanceof ClockException) {
        ApiErrors.send(ctx, 409, "refused: " + applied.cause().getMessage());
      } else if (applied.failed()) {
        ApiErrors.fail(ctx, applied.cause());
      } else {
        ctx.response().setStatusCode(201).end();
      }
    });
  }
}
