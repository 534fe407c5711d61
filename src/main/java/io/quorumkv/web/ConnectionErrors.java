package io.quorumkv.web;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpClosedException;

import java.io.IOException;

/**
 * The exception handler of a connection nothing else watches (an upgraded stream's socket, a server
 * connection). Without one, Vert.x logs every failure of such a connection as SEVERE, the reset of a
 * peer killed or a client gone among them, which are part of a cluster's life: those (a reset, a
 * connection closed under a request) are logged at DEBUG, anything else as one WARNING line.
 * Closing is the close handler's business.
 */
public final class ConnectionErrors {
  private static final System.Logger LOG = System.getLogger(ConnectionErrors.class.getName());

  private ConnectionErrors() {
  }

  /** A handler for the connection described by {@code what} ("batch stream to http://...", say). */
  public static Handler<Throwable> logged(String what) {
    return failure -> {
      if (failure instanceof IOException || failure instanceof HttpClosedException) {
        LOG.log(System.Logger.Level.DEBUG, () -> what + ": " + failure.getMessage());
      } else {
        LOG.log(System.Logger.Level.WARNING, what + ": " + failure);
      }
    };
  }
}
