package io.quorumkv;

import io.quorumkv.config.ConfigException;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.topology.TopologyException;

import java.io.IOException;
import java.net.BindException;

/** The node could not start; the message is the one line the operator sees. */
public final class StartupException extends RuntimeException {
  public StartupException(String message, Throwable cause) {
    super(message, cause, false, false);
  }

  /**
   * What a failed start tells the operator: a conf or startup failure as it is, a refused join or
   * a port in use by name, anything else in a line.
   */
  static RuntimeException from(NodeConfig config, Throwable failure) {
    if (failure instanceof ConfigException configFailure) {
      return configFailure;
    }
    if (failure instanceof StartupException startup) {
      return startup;
    }
    if (failure instanceof TopologyException refused) {
      return new StartupException("cannot join the cluster: " + refused.getMessage(), refused);
    }
    // Java NIO reports a BindException, Netty's native epoll transport an IOException naming the errno.
    if (failure instanceof BindException || failure instanceof IOException && String.valueOf(failure.getMessage())
        .contains("Address already in use")) {
      return new StartupException("cannot listen on " + config.url().host() + ":" + config.url().port()
          + ": address already in use", failure);
    }
    String message = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
    return new StartupException("cannot start: " + message, failure);
  }
}
