package io.quorumkv.web;

import io.quorumkv.config.TlsConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.ServerSSLOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves new certificates without a restart: when the conf's TLS files change (checked every
 * {@code tls.reloadCheckMs}) or the process gets {@code SIGHUP}, every TLS server of the node takes
 * them for its new connections; open connections keep the session they have. A file that cannot be
 * read, or a certificate that does not match its key, leaves the old ones in place (logged).
 */
public final class CertificateReload {
  private static final System.Logger LOG = System.getLogger(CertificateReload.class.getName());

  private final Vertx vertx;
  private final TlsConfig tls;
  private final List<HttpServer> servers = new CopyOnWriteArrayList<>();
  private final AtomicLong reloads = new AtomicLong();
  private volatile List<String> stamps = List.of();
  private long timer = -1;

  private CertificateReload(Vertx vertx, TlsConfig tls) {
    this.vertx = vertx;
    this.tls = tls;
  }

  /**
   * Builds the node's SSL contexts ({@link NodeSslContexts}) on a worker thread, then watches the files
   * (and {@code SIGHUP}); call once per node, before any TLS server or client of the node connects.
   */
  public static Future<CertificateReload> start(Vertx vertx, TlsConfig tls) {
    CertificateReload reload = new CertificateReload(vertx, tls);
    return vertx.executeBlocking(() -> {
      try {
        NodeSslContexts.of(tls).load(vertx);
      } catch (Exception e) {
        throw new IllegalStateException("cannot use the TLS files " + tls.certFile() + " and " + tls.keyFile() + ": "
            + e.getMessage(), e);
      }
      return reload.readStamps();
    }).map(stamps -> {
      reload.stamps = stamps;
      if (tls.reloadCheckMs() > 0) {
        reload.timer = vertx.setPeriodic(tls.reloadCheckMs(), tick -> reload.checkFiles());
      }
      HangupSignal.onHangup(() -> vertx.runOnContext(ignored -> reload.reloadNow()));
      return reload;
    });
  }

  /** Gives this server the new certificates whenever they change. */
  public void serve(HttpServer server) {
    servers.add(server);
  }

  public void forget(HttpServer server) {
    servers.remove(server);
  }

  /** How many reloads were applied since the start. */
  public long reloads() {
    return reloads.get();
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  private void checkFiles() {
    vertx.executeBlocking(this::readStamps).onSuccess(now -> {
      if (!now.equals(stamps)) {
        stamps = now;
        reloadNow();
      }
    });
  }

  /**
   * Builds the new contexts off the event loops, then hands the new options to every server; fails
   * (logged) if the files are not a usable pair.
   */
  public Future<Void> reloadNow() {
    ServerSSLOptions options = TlsOptions.serverSsl(tls);
    return vertx.executeBlocking(() -> {
      NodeSslContexts.of(tls).load(vertx);
      return null;
    }).compose(loaded -> {
      List<Future<Boolean>> updates = new ArrayList<>();
      for (HttpServer server : servers) {
        updates.add(server.updateSSLOptions(options, true));
      }
      return Future.all(updates);
    }).<Void>mapEmpty().onSuccess(done -> {
      reloads.incrementAndGet();
      LOG.log(System.Logger.Level.INFO, "TLS certificate reloaded from " + tls.certFile());
    }).onFailure(failure -> LOG.log(System.Logger.Level.WARNING, "TLS certificate not reloaded, keeping the one in use: "
        + failure.getMessage()));
  }

  /** Each TLS file's modification time and size; blocking. */
  private List<String> readStamps() {
    List<String> now = new ArrayList<>();
    for (Path file : new Path[] {tls.certFile(), tls.keyFile(), tls.caFile(), tls.clientCaFile()}) {
      now.add(file == null ? "" : stampOf(file));
    }
    return now;
  }

  private static String stampOf(Path file) {
    try {
      return Files.getLastModifiedTime(file).toMillis() + "/" + Files.size(file);
    } catch (IOException e) {
      return "unreadable: " + Objects.toString(e.getMessage());
    }
  }
}
