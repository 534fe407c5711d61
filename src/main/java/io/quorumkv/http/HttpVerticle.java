package io.quorumkv.http;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.TlsConfig;
import io.quorumkv.web.ConnectionErrors;
import io.quorumkv.web.CertificateReload;
import io.quorumkv.web.TlsOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One HTTP server on this verticle's event loop. The node deploys one instance per event loop;
 * Vert.x spreads the connections of the shared port over them.
 */
public final class HttpVerticle extends VerticleBase {
  /**
   * Longest request line (method, URI, version): longer ones get 414. Above Vert.x's 4096 default so
   * that ids of a few KiB fit even percent-encoded (three bytes per non-ASCII byte).
   */
  public static final int MAX_INITIAL_LINE_LENGTH = 16 * 1024;
  /** Largest header block: larger ones get 431 (Vert.x's default, stated here so it is a decision). */
  public static final int MAX_HEADER_SIZE = 8 * 1024;

  private final String host;
  private final int port;
  private final long shutdownTimeoutMs;
  private final long idleTimeoutMs;
  private final Function<io.vertx.core.Vertx, Handler<HttpServerRequest>> routerFactory;
  private final Supplier<Future<?>> afterShutdown;
  private final RequestMetrics requests;
  private final TlsConfig tls;
  private final CertificateReload reload;
  private HttpServer server;
  private HttpServer plainServer;

  /**
   * Listens on the conf's host and port (port 0: one free port shared by all instances), closes a
   * connection idle for {@code idleTimeoutMs} and lets in-flight requests finish for
   * {@code shutdownTimeoutMs} when it stops.
   *
   * @param afterShutdown what the stop waits for once the server is shut down, while the
   *                      verticle's replica clients are still open (bound it with a timeout)
   * @param requests      told of the requests answered before routing (those the decoder could not parse)
   * @param reload        gives the server new certificates under TLS; null for plain HTTP
   */
  public HttpVerticle(NodeConfig config, Function<io.vertx.core.Vertx, Handler<HttpServerRequest>> routerFactory,
                      Supplier<Future<?>> afterShutdown, RequestMetrics requests, CertificateReload reload) {
    this.host = config.url().host();
    // Port 0 is not shared between instances; a negative port is one random port shared by all.
    this.port = config.url().port() == 0 ? -1 : config.url().port();
    this.shutdownTimeoutMs = config.shutdownTimeoutMs();
    this.idleTimeoutMs = config.idleTimeoutMs();
    this.routerFactory = routerFactory;
    this.afterShutdown = afterShutdown;
    this.requests = requests;
    this.tls = config.tls();
    this.reload = reload;
  }

  /**
   * Under TLS the node's port speaks only TLS, and {@code tls.plainPort} (if set) serves the same
   * routes over plain HTTP, where internal requests are refused for want of a cluster certificate.
   */
  @Override
  public Future<?> start() {
    Handler<HttpServerRequest> router = routerFactory.apply(vertx);
    if (tls == null) {
      server = serve(options(port), router);
      return server.listen();
    }
    server = serve(TlsOptions.secure(options(port), tls), router);
    reload.serve(server);
    if (tls.plainPort() == 0) {
      return server.listen();
    }
    plainServer = serve(options(tls.plainPort()), router);
    return server.listen().compose(listening -> plainServer.listen());
  }

  private HttpServerOptions options(int port) {
    return new HttpServerOptions().setHost(host).setPort(port)
        .setMaxInitialLineLength(MAX_INITIAL_LINE_LENGTH)
        .setMaxHeaderSize(MAX_HEADER_SIZE)
        // No HTTP/2 upgrade over cleartext: nothing here speaks it, Vert.x answers a malformed
        // "Upgrade: h2c" itself with an empty 400, and its handler cost ~10% of the allocation.
        .setHttp2ClearTextEnabled(false)
        .setIdleTimeout((int) Math.min(idleTimeoutMs, Integer.MAX_VALUE))
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
  }

  private HttpServer serve(HttpServerOptions options, Handler<HttpServerRequest> router) {
    return vertx.createHttpServer(options)
        .connectionHandler(connection -> {
          InvalidRequests.checkVersions(connection);
          connection.exceptionHandler(ConnectionErrors.logged("connection from " + connection.remoteAddress()));
        })
        .invalidRequestHandler(this::answerInvalid)
        .requestHandler(router);
  }

  private void answerInvalid(HttpServerRequest request) {
    long start = System.nanoTime();
    int status = InvalidRequests.answer(request);
    requests.answered("", request.method(), status, System.nanoTime() - start);
  }

  /**
   * Stops accepting connections, lets in-flight requests finish (up to the shutdown timeout),
   * then waits for {@code afterShutdown}.
   */
  @Override
  public Future<?> stop() {
    if (reload != null) {
      reload.forget(server);
    }
    Future<Void> plainStopped = plainServer == null ? Future.succeededFuture()
        : plainServer.shutdown(shutdownTimeoutMs, TimeUnit.MILLISECONDS);
    return Future.join(server.shutdown(shutdownTimeoutMs, TimeUnit.MILLISECONDS), plainStopped)
        .eventually(afterShutdown::get);
  }

  public int actualPort() {
    return server.actualPort();
  }
}
