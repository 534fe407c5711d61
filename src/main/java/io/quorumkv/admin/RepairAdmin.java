package io.quorumkv.admin;

import io.quorumkv.antientropy.AntiEntropy;
import io.quorumkv.antientropy.ExchangeResult;
import io.quorumkv.antientropy.PeerRepair;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.topology.Topology;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.RouteMount;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /admin/repair}: an anti-entropy round now, from this node with every other node of the
 * topology, answered once every exchange has ended: {@code 200} with each peer's outcome (a peer down
 * or an exchange that failed is an outcome, not an error), {@code 409} while a topology change holds
 * anti-entropy back. Each exchange's requests time out like a scheduled exchange's; the round as a
 * whole runs as long as its repairs take at the anti-entropy throttle.
 */
public final class RepairAdmin implements RouteMount {
  public static final String PATH = "/admin/repair";

  private final NodeUrl self;
  private final ClusterTopology topology;
  private final AntiEntropy antiEntropy;

  public RepairAdmin(NodeUrl self, ClusterTopology topology, AntiEntropy antiEntropy) {
    this.self = self;
    this.topology = topology;
    this.antiEntropy = antiEntropy;
  }

  @Override
  public void mount(Router router) {
    router.post(PATH).handler(this::repair);
    router.route(PATH).handler(ApiErrors.methodNotAllowed("POST"));
  }

  private void repair(RoutingContext ctx) {
    Topology current = topology.current();
    if (!current.isStable()) {
      Topology.Change change = current.change();
      ApiErrors.send(ctx, 409, "anti-entropy is held back while the topology changes ("
          + (change == null ? "" : Topology.name(change.kind()) + " of " + change.node() + ", ")
          + "epoch " + current.epoch() + ", " + Topology.name(current.stage()) + "): repair once it is stable");
      return;
    }
    long started = System.nanoTime();
    Context loop = Vertx.currentContext();
    antiEntropy.repairNow().onComplete(done -> loop.runOnContext(v -> answer(ctx, done, current.epoch(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))));
  }

  private void answer(RoutingContext ctx, AsyncResult<List<PeerRepair>> done, long epoch, long tookMs) {
    if (done.failed()) {
      ApiErrors.failCommand(ctx, done.cause(), "repair failed");
      return;
    }
    JsonArray peers = new JsonArray();
    done.result().forEach(repair -> peers.add(outcome(repair)));
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(new JsonObject()
        .put("node", self.toString())
        .put("epoch", epoch)
        .put("tookMs", tookMs)
        .put("peersRepaired", done.result().stream().filter(PeerRepair::succeeded).count())
        .put("peersFailed", done.result().stream().filter(repair -> !repair.succeeded()).count())
        .put("peers", peers)
        .encodePrettily());
  }

  private static JsonObject outcome(PeerRepair repair) {
    JsonObject outcome = new JsonObject().put("peer", repair.peer().toString())
        .put("outcome", repair.succeeded() ? "repaired" : "failed")
        .put("tookMs", repair.tookMs());
    ExchangeResult result = repair.result();
    if (result != null) {
      outcome.put("keysDiffering", result.keysDiffering()).put("sent", result.pushed()).put("received", result.pulled());
    }
    return outcome.put("error", repair.error());
  }
}
