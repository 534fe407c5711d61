package io.quorumkv.backup;

import io.vertx.core.json.JsonObject;

/**
 * The admin endpoints a restore talks to (docs/api.md#backup-and-restore), all behind the admin token:
 * <ul>
 *   <li>{@code GET /admin/restore}: the node, its topology, its purge grace and the largest batch;</li>
 *   <li>{@code POST /admin/restore?versions=keep|fresh}: a batch of records (one frame of writes,
 *   {@code wire.BatchOperations}), answered with how many were stored, found a newer record
 *   already, or failed;</li>
 *   <li>{@code GET /admin/restore/keys?start=S[&end=E]}: the cluster's live keys in range, one per
 *   line, percent-encoded.</li>
 * </ul>
 */
public final class RestoreProtocol {
  public static final String PATH = "/admin/restore";
  public static final String KEYS_PATH = PATH + "/keys";
  public static final String VERSIONS = "versions";
  public static final String KEEP = "keep";
  public static final String FRESH = "fresh";
  /** The most records one batch may hold. */
  public static final int MAX_RECORDS = 1000;

  private RestoreProtocol() {
  }

  /** A batch's answer. */
  public static JsonObject outcome(long stored, long newer, long failed, String error) {
    return new JsonObject().put("stored", stored).put("newer", newer).put("failed", failed).put("error", error);
  }
}
