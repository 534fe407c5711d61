package io.quorumkv.http;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One HTTP server on this verticle's event loop. The node deploys one instance per event loop;
 * Vert.x spreads the connections of the shared port over them.
 */
public final class HttpVerticle extends VerticleBase {
  private final String host;
  private final int port;
  private final long shutdownTimeoutMs;
  private final Function<io.vertx.core.Vertx, Router> routerFactory;
  private HttpServer server;

  /**
   * @param port              the port to listen on; 0 picks a free one (shared by all instances)
   * @param shutdownTimeoutMs how long {@link #stop()} lets in-flight requests finish
   */
  public HttpVerticle(String host, int port, long shutdownTimeoutMs, Function<io.vertx.core.Vertx, Router> routerFactory) {
    this.host = host;
    this.port = port;
    this.shutdownTimeoutMs = shutdownTimeoutMs;
    this.routerFactory = routerFactory;
  }

  @Override
  public Future<?> start() {
    // No h2c: upgrading cleartext HTTP/1.1 to HTTP/2 is not offered, and its handler cost every
    // request ~10% of the allocation (docs/performance.md).
    server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port).setHttp2ClearTextEnabled(false))
        .requestHandler(routerFactory.apply(vertx));
    return server.listen();
  }

  /** Stops accepting connections and lets in-flight requests finish, up to the shutdown timeout. */
  @Override
  public Future<?> stop() {
    return server.shutdown(shutdownTimeoutMs, TimeUnit.MILLISECONDS);
  }

  public int actualPort() {
    return server.actualPort();
  }
}
