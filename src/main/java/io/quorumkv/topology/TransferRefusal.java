package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.versioning.ClockException;

import java.util.List;
import java.util.Locale;

/** Why a receiver did not store records a transfer sent it, in words an operator can act on. */
final class TransferRefusal {
  private TransferRefusal() {
  }

  /** @param causes the failures of the records this node did not store, at least one */
  static Exception describe(NodeUrl receiver, List<Throwable> causes, int batchSize) {
    long aheadMs = causes.stream().filter(ClockException.class::isInstance)
        .mapToLong(cause -> ((ClockException) cause).aheadMs()).max().orElse(0);
    String counted = causes.size() + " of " + batchSize + " records of a batch refused";
    if (aheadMs > 0) {
      return new Exception(String.format(Locale.ROOT, "the receiver's clock is %.1f s behind the source's versions"
          + " (more than maxClockOffsetMs): fix the clock of %s (NTP); %s", aheadMs / 1000.0, receiver, counted));
    }
    Throwable first = causes.get(0);
    String message = first.getMessage() == null ? first.getClass().getSimpleName() : first.getMessage();
    return new Exception("the receiver cannot store records: " + message + "; " + counted);
  }
}
