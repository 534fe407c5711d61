package io.quorumkv.http;

import io.vertx.core.http.HttpMethod;

/** Told of every request the HTTP server answers (the node's request rate and latency series). */
public interface RequestMetrics {
  /**
   * @param route  the name of the route that answered (its path), "" for none
   * @param nanos  from the first route to the end of the response
   */
  void answered(String route, HttpMethod method, int status, long nanos);
}
