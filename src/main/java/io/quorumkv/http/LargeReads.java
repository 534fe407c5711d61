package io.quorumkv.http;

import io.quorumkv.admission.Admission;
import io.quorumkv.admission.ByteBudget;
import io.quorumkv.storage.LargeValueSizes;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.RawBodyHandler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * A client's GET of a large value holds it on the heap until the client has read the answer,
 * which a slow client makes last: such values draw on the client budget, as bodies do, and a GET
 * that does not fit gets {@code 503} with {@code Retry-After}. A value known large is budgeted
 * before it is read; one not known yet, once read.
 */
final class LargeReads {
  private static final String HELD = "quorumkv.valueBytesHeld";
  /** The value read, and the copy the coordinator decoded it from, until the answer is sent. */
  private static final int HEAP_COPIES = 2;

  private final ByteBudget budget;
  private final LargeValueSizes sizes;
  private final Admission admission;

  LargeReads(Admission admission) {
    this.admission = admission;
    this.budget = admission.clientBodies();
    this.sizes = admission.largeValues();
  }

  /** Before the read: takes the bytes of the key's value if it is known large; false once the 503 is sent. */
  boolean admitRead(RoutingContext ctx, byte[] key) {
    int known = sizes.sizeOf(key);
    return known == 0 || hold(ctx, known);
  }

  /** After the read: takes what a large value needs beyond what was held; false once the 503 is sent. */
  boolean admitValue(RoutingContext ctx, byte[] key, byte[] value) {
    sizes.observe(key, value == null ? 0 : value.length);
    return value == null || !LargeValueSizes.isLarge(value.length) || hold(ctx, value.length);
  }

  /** A write went through: remember its value's size for the reads to come. */
  void written(byte[] key, byte[] value) {
    sizes.observe(key, value.length);
  }

  /** Whether the key's value is known large, so that its read must be budgeted before it starts. */
  boolean isKnownLarge(byte[] key) {
    return sizes.sizeOf(key) != 0;
  }

  /**
   * After the read of a key not known large, for a GET answered outside the router: the bytes its
   * value holds until the answer is sent (0 when it is not large), or -1 once the 503 is sent.
   */
  long holdValue(HttpServerResponse response, byte[] key, byte[] value) {
    sizes.observe(key, value == null ? 0 : value.length);
    if (value == null || !LargeValueSizes.isLarge(value.length)) {
      return 0;
    }
    long bytes = (long) value.length * HEAP_COPIES;
    if (budget.tryAcquire(bytes)) {
      return bytes;
    }
    refuse(response);
    return -1;
  }

  /** Gives back what {@link #holdValue} held, once the answer is sent. */
  void release(long bytes) {
    budget.release(bytes);
  }

  private void refuse(HttpServerResponse response) {
    admission.shed(Admission.Reason.MEMORY);
    response.putHeader(HttpHeaders.RETRY_AFTER, RawBodyHandler.RETRY_AFTER_SECONDS);
    ApiErrors.send(response, 503, "overloaded: values and request bodies in memory are at this node's budget of "
        + budget.limit() + " bytes of heap; retry");
  }

  private boolean hold(RoutingContext ctx, long valueBytes) {
    Long held = ctx.get(HELD);
    long more = valueBytes * HEAP_COPIES - (held == null ? 0 : held);
    if (more <= 0) {
      return true;
    }
    if (!budget.tryAcquire(more)) {
      refuse(ctx.response());
      return false;
    }
    if (held == null) {
      ctx.addEndHandler(ended -> budget.release(ctx.<Long>get(HELD)));
    }
    ctx.put(HELD, (held == null ? 0 : held) + more);
    return true;
  }
}
