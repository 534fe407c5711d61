package io.quorumkv.cli;

import io.quorumkv.web.ClientFailures;

import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;

/**
 * One line for a request that failed: the tools' shared wording ({@link ClientFailures}: a node not
 * reached, the wrong scheme, a certificate not trusted, an answer refused), with the admin command's
 * own timeouts.
 */
final class ExchangeFailures {
  private ExchangeFailures() {
  }

  /** Blocking for a moment when it has to probe the node for TLS: from the command's own thread. */
  static String describe(URI node, Throwable failure) {
    if (failure instanceof HttpConnectTimeoutException) {
      return node + " did not accept a connection within " + NodeClient.CONNECT_TIMEOUT.toSeconds() + " s";
    }
    if (failure instanceof HttpTimeoutException) {
      return node + " did not answer in time";
    }
    return ClientFailures.describe(node, failure);
  }

  /** An answer with a status that was not expected: the status and the node's own short text. */
  static String describe(URI node, int status, String body) {
    return ClientFailures.answer(status, body) + " (" + node + ")";
  }
}
