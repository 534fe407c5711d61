package io.quorumkv.antientropy;

import io.quorumkv.storage.PurgeSweep;
import io.quorumkv.storage.Record;

import java.util.Arrays;

/**
 * What an exchange does about one key the two sides hold differently: the freshest copy
 * ({@link Record#merge}, the larger replica count kept) goes to each side whose copy differs.
 * A tombstone or expired record past its purge grace is not copied to a side that holds nothing
 * for the key: that side purged it (or never needed it), and copying it back would only make the
 * two sides purge it again in turn.
 *
 * @param winner the copy both sides should hold, null if neither holds anything
 */
record RepairPlan(Record winner, boolean push, boolean pull) {

  static RepairPlan of(Record local, Record remote, long nowMillis, long graceMillis) {
    if (local == null && remote == null) {
      return new RepairPlan(null, false, false);
    }
    Record winner = local == null ? remote : remote == null ? local : Record.merge(local, remote);
    if ((local == null || remote == null) && PurgeSweep.isPurgeable(winner, nowMillis, graceMillis)) {
      return new RepairPlan(winner, false, false);
    }
    return new RepairPlan(winner, !sameCopy(winner, remote), !sameCopy(winner, local));
  }

  static boolean sameCopy(Record a, Record b) {
    return b != null && a.version() == b.version() && a.tombstone() == b.tombstone()
        && a.expiresAt() == b.expiresAt() && a.replicas() == b.replicas() && Arrays.equals(a.value(), b.value());
  }
}
