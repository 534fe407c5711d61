package io.quorumkv.peer;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.web.ConnectionErrors;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

import java.util.function.Consumer;

/**
 * The one client for requests to other nodes' {@link InternalEndpoint}s: every request it builds
 * carries the cluster secret and waits as long as its endpoint's row of the table says. Its
 * connections stay on the context that made it.
 */
public final class PeerClient {
  private final NodeConfig config;
  private final HttpClient client;
  private final WebClient webClient;

  /** @param timeouts the timeout of the endpoints it calls: it connects within theirs */
  public PeerClient(Vertx vertx, NodeConfig config, InternalEndpoint.Timeout timeouts, PoolOptions pool) {
    this(vertx, config, timeouts, pool, options -> { });
  }

  /** @param tuning sets options of this client's own on top of {@link PeerClientOptions}' */
  public PeerClient(Vertx vertx, NodeConfig config, InternalEndpoint.Timeout timeouts, PoolOptions pool,
                    Consumer<HttpClientOptions> tuning) {
    WebClientOptions options = PeerClientOptions.from(config, timeouts.connectMillis(config));
    tuning.accept(options);
    this.config = config;
    this.client = vertx.httpClientBuilder().with(options).with(pool)
        .withConnectHandler(connection -> connection.exceptionHandler(
            ConnectionErrors.logged("peer connection to " + connection.remoteAddress())))
        .build();
    this.webClient = WebClient.wrap(client, options);
  }

  /** How long a call of the endpoint waits: its row of the table with this node's conf. */
  public long timeoutMs(InternalEndpoint endpoint) {
    return endpoint.timeout().millis(config);
  }

  /**
   * The endpoint's method and path on the target, with the secret, for a stream: no request
   * timeout, as a stream's caller times its opening and its data apart.
   *
   * @param query the encoded query string, null for none
   */
  public RequestOptions options(InternalEndpoint endpoint, NodeUrl target, String query) {
    RequestOptions options = new RequestOptions().setMethod(endpoint.method()).setHost(target.host())
        .setPort(target.port()).setURI(uri(endpoint, query));
    if (config.clusterSecret() != null) {
      options.putHeader(InternalEndpoint.SECRET_HEADER, config.clusterSecret());
    }
    return options;
  }

  public Future<HttpClientRequest> request(RequestOptions options) {
    return client.request(options);
  }

  /**
   * A request to the endpoint on the target, with the secret, that fails when no answer comes
   * within {@link #timeoutMs} of having a connection.
   *
   * @param query the encoded query string, null for none
   */
  public HttpRequest<Buffer> webRequest(InternalEndpoint endpoint, NodeUrl target, String query) {
    HttpRequest<Buffer> request = webClient.request(endpoint.method(), target.port(), target.host(),
        uri(endpoint, query)).timeout(timeoutMs(endpoint));
    if (config.clusterSecret() != null) {
      request.putHeader(InternalEndpoint.SECRET_HEADER, config.clusterSecret());
    }
    return request;
  }

  public Future<Void> close() {
    return client.close();
  }

  private static String uri(InternalEndpoint endpoint, String query) {
    return query == null ? endpoint.path() : endpoint.path() + "?" + query;
  }
}
