package io.quorumkv.replication;

import io.quorumkv.admission.Admission;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.peer.PeerRoutes;
import io.quorumkv.replication.BatchAnswers.Answer;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.ClockException;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.BadRequestException;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RawBodyHandler;
import io.quorumkv.web.RouteMount;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.BatchOperations.Operation;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.List;

/**
 * The replica side of {@link InternalProtocol}: reads and applies records in this node's own
 * store, never re-coordinating; mounted behind the cluster secret.
 */
public final class InternalHandler implements RouteMount {
  /** A batch holds one value of up to the body limit, or many whose sum is at most RemoteReplica's batch size. */
  private static final long BATCH_OVERHEAD_BYTES = 2L << 20;

  private final StorageService storage;
  private final HybridLogicalClock clock;
  private final Admission admission;
  private final long maxBodyBytes;
  private final PeerAuthorization authorization;

  public InternalHandler(StorageService storage, HybridLogicalClock clock, Admission admission, long maxBodyBytes,
                         PeerAuthorization authorization) {
    this.storage = storage;
    this.clock = clock;
    this.admission = admission;
    this.maxBodyBytes = maxBodyBytes;
    this.authorization = authorization;
  }

  @Override
  public void mount(Router router) {
    long maxBatchBytes = maxBodyBytes + BATCH_OVERHEAD_BYTES;
    BatchStreamHandler streams = new BatchStreamHandler(this, maxBatchBytes, admission.peerBatches());
    new PeerRoutes(router, authorization, streams).add(InternalEndpoint.RECORD_STREAM, streams::upgrade).end();
    new PeerRoutes(router, authorization, this)
        .add(InternalEndpoint.RECORD_GET, ApiErrors.guarded(this::read))
        .add(InternalEndpoint.RECORD_PUT, RawBodyHandler.forPeers(maxBodyBytes, admission),
            ApiErrors.guarded(this::write))
        .add(InternalEndpoint.RECORD_BATCH, RawBodyHandler.forPeers(maxBatchBytes, admission),
            ApiErrors.guarded(this::batch))
        .end();
  }

  private void read(RoutingContext ctx) {
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
  private void batch(RoutingContext ctx) {
    List<Operation> operations = operationsOf(ctx, InternalProtocol.MAX_BATCH_OPERATIONS);
    if (operations == null) {
      return;
    }
    answersTo(operations).onComplete(answers -> ctx.response()
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream")
        .end(BatchAnswers.encode(answers.result())));
  }

  /**
   * The operations of a batch body: null once the request got its 413 for more than
   * {@code maxOperations}; a {@link BadRequestException} when the body is not a batch.
   */
  public static List<Operation> operationsOf(RoutingContext ctx, int maxOperations) {
    try {
      return BatchOperations.decode(Buffer.buffer(RawBodyHandler.bodyOf(ctx)), maxOperations);
    } catch (BatchOperations.TooManyOperationsException e) {
      ApiErrors.send(ctx, 413, e.getMessage());
      return null;
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(e.getMessage());
    }
  }

  /** Runs every operation of a batch (each may succeed or fail alone); completes, never fails, with their answers. */
  Future<List<Answer>> answersTo(List<Operation> operations) {
    List<Future<Answer>> answers = new ArrayList<>(operations.size());
    for (Operation operation : operations) {
      Future<Answer> answer;
      if (operation.isRead()) {
        Future<Record> read = storage.get(operation.key());
        answer = (operation.digest() ? read.map(LeftOutValues::digestOf) : read).map(Answer::of);
      } else {
        answer = apply(operation.key(), operation.record())
            .map(kept -> Answer.of(WriteAnswer.of(operation.record(), kept)));
      }
      answers.add(answer.recover(failure -> Future.succeededFuture(failure instanceof ClockException
          ? Answer.refused(failure.getMessage())
          : Answer.failed(String.valueOf(failure.getMessage())))));
    }
    return Future.all(answers).map(all -> answers.stream().map(Future::result).toList());
  }

  private Future<Record> apply(byte[] key, Record record) {
    return ForeignRecords.apply(clock, storage, key, record);
  }

  /** PUT of one record; 409 when its version is too far ahead of this node's clock. */
  private void write(RoutingContext ctx) {
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
