package io.quorumkv.web;

import io.vertx.ext.web.Router;

/** Routes another part of the node adds to the API router (admin, metrics), before the catch-all 400. */
public interface RouteMount {
  void mount(Router router);
}
