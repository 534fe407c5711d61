package io.quorumkv.replication;

import io.quorumkv.web.ApiHeaders;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * How a {@code /v0/entity} write is answered, by the node the client asked and by a key's first replica
 * for a forwarded one alike: its status with the version written, or the failure's ({@link ClientErrors}).
 */
public final class WriteAnswers {
  private WriteAnswers() {
  }

  public static void answer(HttpServerRequest request, Future<Long> write, int status) {
    write.onComplete(done -> {
      if (done.failed()) {
        ClientErrors.fail(request, done.cause());
        return;
      }
      withVersion(request.response(), done.result()).setStatusCode(status).end();
    });
  }

  /** The record's version, as a number and as an entity tag. */
  public static HttpServerResponse withVersion(HttpServerResponse response, long version) {
    return response.putHeader(ApiHeaders.VERSION, Long.toString(version))
        .putHeader(ApiHeaders.ETAG, Preconditions.entityTag(version));
  }
}
