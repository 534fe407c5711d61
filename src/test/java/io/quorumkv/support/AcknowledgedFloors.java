package io.quorumkv.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per key, the freshest write acknowledged so far, as a floor for reads: a read at the default
 * quorum that starts after a write was acknowledged must answer that write or a newer one. So a
 * read may not return a version below the floor taken when it started, a key whose floor is a
 * PUT may not read as 404 (the write was lost), and a key whose floor is a DELETE may not read
 * as a value that is not newer than the DELETE (the key came back).
 */
public final class AcknowledgedFloors {
  /** The freshest acknowledged write of a key: its version and whether it was a DELETE. */
  public record Floor(long version, boolean deleted) {
  }

  private final Map<String, Floor> floors = new ConcurrentHashMap<>();

  /** Raises the key's floor to the write if it is acknowledged and newer. */
  public void record(Write write) {
    if (!write.acknowledged()) {
      return;
    }
    if (write.version() < 0) {
      throw new IllegalArgumentException("acknowledged write of " + write.key() + " without a version");
    }
    Floor floor = new Floor(write.version(), write.kind() == Write.Kind.DELETE);
    floors.merge(write.key(), floor, (held, offered) -> offered.version() > held.version() ? offered : held);
  }

  /** The key's floor now, null if no write of it was acknowledged. */
  public Floor floor(String key) {
    return floors.get(key);
  }

  /**
   * What is wrong with a read (status 200 or 404, the version it answered with, -1 for none) given
   * the floor taken when it started; null when nothing is.
   */
  public static String judge(Floor floor, int status, long version) {
    if (floor == null) {
      return null;
    }
    if (status == 404) {
      return floor.deleted() ? null : "LOST: 404 after a PUT acknowledged with v" + floor.version();
    }
    if (version < 0) {
      return "200 without a version";
    }
    if (floor.deleted() && version <= floor.version()) {
      return "RESURRECTED: v" + version + " after a DELETE acknowledged with v" + floor.version();
    }
    if (version < floor.version()) {
      return "STALE: v" + version + " after a PUT acknowledged with v" + floor.version();
    }
    return null;
  }
}
