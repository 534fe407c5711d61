package io.quorumkv.web;

import io.quorumkv.storage.DiskFullException;
import io.quorumkv.storage.StorageException;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.util.function.BiConsumer;

/**
 * Turns failures into answers: a status code and a short {@code text/plain} body saying what
 * was wrong, never a stack trace.
 */
public final class ApiErrors {
  private static final System.Logger LOG = System.getLogger(ApiErrors.class.getName());
  /** Messages may quote the request (a bad ack, an unknown path); a hostile one must not make them long. */
  public static final int MAX_MESSAGE_CHARS = 200;

  private ApiErrors() {
  }

  /** Answers with the status and a short text/plain body (or resets a response already under way). */
  public static void send(RoutingContext ctx, int status, String message) {
    send(ctx.response(), status, message);
  }

  /** As {@link #send(RoutingContext, int, String)}, for a request answered outside the router. */
  public static void send(HttpServerResponse response, int status, String message) {
    if (response.headWritten()) {
      response.reset();
      return;
    }
    response.setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .end(shortLine(message) + "\n");
  }

  /** Runs the handler, answering any exception it throws while parsing the request as {@link #fail} does. */
  public static Handler<RoutingContext> guarded(Handler<RoutingContext> handler) {
    return guarded(handler, ApiErrors::fail);
  }

  /** Runs the handler, answering any exception it throws while parsing the request with {@code answer}. */
  public static Handler<RoutingContext> guarded(Handler<RoutingContext> handler,
                                                BiConsumer<RoutingContext, Throwable> answer) {
    return ctx -> {
      try {
        handler.handle(ctx);
      } catch (RuntimeException e) {
        answer.accept(ctx, e);
      }
    };
  }

  /** Answers 405 with an {@code Allow} header naming the methods the path takes. */
  public static Handler<RoutingContext> methodNotAllowed(String allowed) {
    return ctx -> {
      ctx.response().putHeader(HttpHeaders.ALLOW, allowed);
      ApiErrors.send(ctx, 405, "method " + ctx.request().method().name() + " not allowed on " + ctx.request().path()
          + "; allowed: " + allowed);
    };
  }

  /** The message on one line (control characters shown as '?') and cut to {@link #MAX_MESSAGE_CHARS}. */
  public static String shortLine(String message) {
    String text = message == null ? "" : message;
    StringBuilder line = new StringBuilder(Math.min(text.length(), MAX_MESSAGE_CHARS + 3));
    for (int i = 0; i < text.length() && line.length() < MAX_MESSAGE_CHARS; i++) {
      char c = text.charAt(i);
      line.append(Character.isISOControl(c) ? '?' : c);
    }
    if (text.length() > MAX_MESSAGE_CHARS) {
      line.append("...");
    }
    return line.toString();
  }

  /**
   * Answers a failure any route may meet: 400 for a bad request, 507 for a full disk, 503 for a
   * storage failure, else 500 (logged). The public API maps its own failures first ({@code replication.ClientErrors}).
   */
  public static void fail(RoutingContext ctx, Throwable failure) {
    fail(ctx.request(), failure);
  }

  /** As {@link #fail(RoutingContext, Throwable)}, for a request answered outside the router. */
  public static void fail(HttpServerRequest request, Throwable failure) {
    HttpServerResponse response = request.response();
    if (failure instanceof BadRequestException) {
      send(response, 400, failure.getMessage());
    } else if (failure instanceof DiskFullException) {
      send(response, 507, "insufficient storage: " + failure.getMessage());
    } else if (failure instanceof StorageException) {
      LOG.log(System.Logger.Level.WARNING, "storage failure on " + request.uri() + ": " + failure.getMessage());
      send(response, 503, "storage unavailable: " + failure.getMessage());
    } else {
      LOG.log(System.Logger.Level.ERROR, "failed " + request.method() + " " + request.uri(), failure);
      send(response, 500, "internal error");
    }
  }

  /**
   * Answers the failure of an admin command by the exception's kind: 400 for a bad parameter
   * (IllegalArgumentException), 404 for an unknown name (NoSuchElementException), 409 for a state
   * that forbids it (IllegalStateException), else 500 with {@code what} and the message.
   */
  public static void failCommand(RoutingContext ctx, Throwable failure, String what) {
    send(ctx, commandStatus(failure), commandMessage(failure, what));
  }

  /** The status {@link #failCommand} answers the failure with. */
  public static int commandStatus(Throwable failure) {
    if (failure instanceof IllegalArgumentException) {
      return 400;
    } else if (failure instanceof java.util.NoSuchElementException) {
      return 404;
    } else if (failure instanceof IllegalStateException) {
      return 409;
    }
    return 500;
  }

  /** The message {@link #failCommand} answers the failure with (before {@link #shortLine}). */
  public static String commandMessage(Throwable failure, String what) {
    return commandStatus(failure) == 500 ? what + ": " + failure.getMessage() : failure.getMessage();
  }

  /**
   * A failure vertx-web raised where no route's failure handler sees it, such as a request path it
   * cannot percent-decode or an HTTP/1.1 request without a Host header.
   */
  public static void handleUnhandledFailure(RoutingContext ctx, int failedStatus) {
    int status = failedStatus < 400 ? 500 : failedStatus;
    Throwable failure = ctx.failure();
    String message = failure == null ? null : failure.getMessage();
    if (status == 413) {
      send(ctx, 413, "request body exceeds the limit");
    } else if (status == 400 && failure instanceof IllegalArgumentException) {
      send(ctx, 400, "malformed request path (bad percent-encoding)");
    } else if (status == 400 && message != null && !message.contains("Exception")) {
      send(ctx, 400, message); // such as vertx-web's "For HTTP/1.x requests, the 'Host' header is required"
    } else if (status >= 500) {
      LOG.log(System.Logger.Level.ERROR, "failed " + ctx.request().method() + " " + ctx.request().uri(), failure);
      send(ctx, status, "internal error");
    } else if (status == 400) {
      send(ctx, 400, "bad request");
    } else {
      send(ctx, status, "request failed with status " + status);
    }
  }
}
