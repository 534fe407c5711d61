package io.quorumkv.admin;

import io.quorumkv.config.ConfigException;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.topology.Topology;
import io.quorumkv.topology.TopologyException;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.function.UnaryOperator;

/**
 * Taking nodes out of the cluster: {@code POST /admin/cluster/leave} on the node that should
 * leave, {@code POST /admin/cluster/remove?url=U} on any node for a node that is down for good.
 * Both start a change (202 with the new topology) or answer 409 saying why they cannot now.
 * Removing the node a change is streaming for, once it died, is the way out of that change.
 * Adding a node needs no endpoint: a node started with a conf naming the cluster joins it.
 */
public final class MembershipAdmin implements RouteMount {
  public static final String LEAVE = "/admin/cluster/leave";
  public static final String REMOVE = "/admin/cluster/remove";

  private final ClusterTopology topology;

  public MembershipAdmin(ClusterTopology topology) {
    this.topology = topology;
  }

  @Override
  public void mount(Router router) {
    for (String path : new String[] {LEAVE, REMOVE}) {
      router.post(path).handler(path.equals(LEAVE) ? this::leave : this::remove);
      router.route(path).handler(ApiErrors.methodNotAllowed("POST"));
    }
  }

  private void leave(RoutingContext ctx) {
    NodeUrl self = topology.self();
    answer(ctx, topology.change(on -> {
      topology.requireAllAlive(on, null);
      return on.withLeaving(self, Topology.Kind.LEAVE);
    }));
  }

  private void remove(RoutingContext ctx) {
    String text = ctx.request().getParam("url");
    if (text == null || text.isEmpty()) {
      ApiErrors.send(ctx, 400, "missing 'url': the node to remove, as its conf's url");
      return;
    }
    NodeUrl node;
    try {
      node = NodeUrl.parse("url", text);
    } catch (ConfigException e) {
      ApiErrors.send(ctx, 400, e.getMessage());
      return;
    }
    UnaryOperator<Topology> removal = on -> {
      if (on.isMember(node) && topology.liveNodes().isAlive(node)) {
        throw new TopologyException(node + " is alive: ask it to leave (POST " + LEAVE + " on it)");
      }
      topology.requireAllAlive(on, node);
      return on.withRemoved(node);
    };
    answer(ctx, topology.change(removal));
  }

  private static void answer(RoutingContext ctx, Future<Topology> change) {
    change.onComplete(done -> {
      if (done.succeeded()) {
        ctx.response().setStatusCode(202).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
            .end(done.result().toJson().encodePrettily());
      } else if (done.cause() instanceof TopologyException refused) {
        ApiErrors.send(ctx, 409, refused.getMessage());
      } else {
        ApiErrors.send(ctx, 503, "the topology cannot be changed now: " + done.cause().getMessage());
      }
    });
  }
}
