package io.quorumkv.cli;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;

/** One line for a request that failed: a node not reached, a TLS failure, an answer refused. */
final class ExchangeFailures {
  private static final int BODY_SHOWN = 200;

  private ExchangeFailures() {
  }

  static String describe(URI node, Throwable failure) {
    if (failure instanceof ConnectException) {
      return "no node at " + node + " (connection refused)";
    }
    if (failure instanceof HttpConnectTimeoutException) {
      return node + " did not accept a connection within " + NodeClient.CONNECT_TIMEOUT.toSeconds() + " s";
    }
    if (failure instanceof HttpTimeoutException) {
      return node + " did not answer in time";
    }
    String message = failure.getMessage();
    return node + ": " + failure.getClass().getSimpleName() + (message == null ? "" : " " + message);
  }

  /** An answer with a status that was not expected: the status and the node's own short text. */
  static String describe(URI node, int status, String body) {
    String text = body == null ? "" : body.strip().replaceAll("\\s+", " ");
    if (text.length() > BODY_SHOWN) {
      text = text.substring(0, BODY_SHOWN) + "...";
    }
    return status + " " + (text.isEmpty() ? "" : text + " ") + "(" + node + ")";
  }
}
