package io.quorumkv.ui;

import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.RouteMount;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * {@code GET /ui/}: the dashboard, static files from the jar (the page, its script and styles,
 * and uPlot from its WebJar under {@code /ui/lib/}). The page reads {@code /v0/cluster},
 * {@code /metrics} and {@code /admin/jfr} from the node that served it, with the token it was given;
 * {@code /ui/settings.json} tells it whether the admin API and the reads want a token, so it never
 * has to provoke a 401 to find out. The files themselves need no token.
 * Every answer carries a content security policy allowing nothing but this node. See docs/dashboard.md.
 */
public final class Dashboard implements RouteMount {
  public static final String PATH = "/ui";
  private static final String WEBROOT = "quorumkv-ui";
  /** The flame graph viewer shows converter output with inline scripts and styles; no other page may run any. */
  private static final String FLAME_VIEWER = PATH + "/flame.html";
  private static final String POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  private static final String FLAME_POLICY = "default-src 'self'; script-src 'self' 'unsafe-inline'; "
      + "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "
      + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  private static final String UPLOT_PROPERTIES = "META-INF/maven/org.webjars.npm/uplot/pom.properties";

  private final String settings;
  private final String uplotDist;

  /**
   * @param adminTokenRequired whether this node's admin API wants a bearer token
   * @param readTokenRequired  whether its reads ({@code /v0/cluster}) want one too
   */
  public Dashboard(boolean adminTokenRequired, boolean readTokenRequired) {
    this.settings = new JsonObject().put("adminTokenRequired", adminTokenRequired)
        .put("readTokenRequired", readTokenRequired).encode();
    this.uplotDist = "META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist";
  }

  @Override
  public void mount(Router router) {
    // vertx-web matches "/ui" on "/ui/" too: only the bare path is sent on to the page.
    router.get(PATH).handler(ctx -> {
      if (ctx.request().path().equals(PATH)) {
        ctx.redirect(PATH + "/");
      } else {
        ctx.next();
      }
    });
    router.route(PATH + "/*").handler(Dashboard::onlyGet);
    router.get(PATH + "/settings.json").handler(ctx -> ctx.response()
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(settings));
    router.get(PATH + "/lib/*").handler(StaticHandler.create(uplotDist).setCachingEnabled(false));
    router.get(PATH + "/*").handler(StaticHandler.create(WEBROOT).setCachingEnabled(false));
    // A file that is not there falls through to the router's "unknown path" 400.
  }

  private static void onlyGet(RoutingContext ctx) {
    if (ctx.request().method() != HttpMethod.GET) {
      ApiErrors.methodNotAllowed("GET").handle(ctx);
      return;
    }
    ctx.response()
        .putHeader("Content-Security-Policy", ctx.request().path().equals(FLAME_VIEWER) ? FLAME_POLICY : POLICY)
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("Referrer-Policy", "no-referrer")
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-store");
    ctx.next();
  }

  /** The uPlot version on the classpath, from its WebJar's Maven metadata (read once, at the node's start). */
  private static String uplotVersion() {
    try (InputStream in = Dashboard.class.getClassLoader().getResourceAsStream(UPLOT_PROPERTIES)) {
      if (in == null) {
        throw new IllegalStateException(UPLOT_PROPERTIES + " is missing from the classpath: the uplot WebJar is not packaged");
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
