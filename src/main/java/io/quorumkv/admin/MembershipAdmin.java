package io.quorumkv.admin;

import io.quorumkv.config.ConfigException;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.topology.StuckChange;
import io.quorumkv.topology.Topology;
import io.quorumkv.topology.TopologyException;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * Taking nodes out of the cluster: {@code POST /admin/cluster/leave} on the node that should
 * leave, {@code POST /admin/cluster/remove?url=U} on any node for a node that is down for good.
 * Both start a change (202 with the new topology) or answer 409 saying why they cannot now, and
 * the way out when the change in progress waits for a node that is down.
 * {@code POST /admin/cluster/abort} on any node takes a change still streaming back to the members
 * from before it: the way out of a change waiting for a node down for good.
 * Removing the node a change is streaming for, once it died, is the other way out of that change.
 * Adding a node needs no endpoint: a node started with a conf naming the cluster joins it.
 */
public final class MembershipAdmin implements RouteMount {
  public static final String LEAVE = "/admin/cluster/leave";
  public static final String REMOVE = "/admin/cluster/remove";
  public static final String ABORT = "/admin/cluster/abort";

  private final ClusterTopology topology;

  public MembershipAdmin(ClusterTopology topology) {
    this.topology = topology;
  }

  @Override
  public void mount(Router router) {
    Map<String, Handler<RoutingContext>> handlers = Map.of(LEAVE, this::leave, REMOVE, this::remove, ABORT, this::abort);
    handlers.forEach((path, handler) -> {
      router.post(path).handler(handler);
      router.route(path).handler(ApiErrors.methodNotAllowed("POST"));
    });
  }

  private void leave(RoutingContext ctx) {
    NodeUrl self = topology.self();
    answer(ctx, topology.change(on -> {
      topology.requireAllAlive(on, null);
      return on.withLeaving(self, Topology.Kind.LEAVE);
    }).recover(this::withWayOut));
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
    answer(ctx, topology.change(removal).recover(this::withWayOut));
  }

  /**
   * Refused without a majority: a node cut off from the others sees them down, and an abort taken
   * on its side of a partition would fork the cluster's way out from the other side's.
   */
  private void abort(RoutingContext ctx) {
    answer(ctx, topology.change(on -> {
      if (!on.isStable() && !topology.seesMajority(on)) {
        throw new TopologyException(topology.self() + " does not see a majority of the members alive: abort through"
            + " a node that does");
      }
      return on.aborted();
    }));
  }

  /** A refusal that names the way out when the change in progress waits for a node that is down. */
  private Future<Topology> withWayOut(Throwable refused) {
    if (!(refused instanceof TopologyException)) {
      return Future.failedFuture(refused);
    }
    return Future.failedFuture(topology.stuck()
        .map(stuck -> new TopologyException(refused.getMessage() + "; " + wayOut(stuck))).orElse((TopologyException) refused));
  }

  /**
   * The operator's way out of a change that waits for down nodes, in one short clause: a 409's
   * line is cut at {@link ApiErrors#MAX_MESSAGE_CHARS}, after the refusal it follows.
   */
  static String wayOut(StuckChange stuck) {
    String down = stuck.down().stream().map(NodeUrl::toString).collect(Collectors.joining(", "));
    String gone = "if " + down + (stuck.down().size() == 1 ? " is" : " are") + " gone for good: ";
    if (stuck.wayOut() == StuckChange.WayOut.REMOVE) {
      return gone + "POST " + REMOVE + " it, which ends the change";
    }
    return gone + "POST " + ABORT + ", then remove " + (stuck.down().size() == 1 ? "it" : "them");
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
