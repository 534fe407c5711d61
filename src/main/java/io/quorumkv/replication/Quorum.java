package io.quorumkv.replication;

/**
 * How many replicas a request goes to ({@code from}) and how many must answer ({@code ack}).
 * Defaults: {@code from} is the cluster's replication factor (at most its size), {@code ack} a majority of {@code from}.
 */
public record Quorum(int ack, int from) {

  public static int majorityOf(int replicas) {
    return replicas / 2 + 1;
  }

  /**
   * Parses the request's {@code ack} and {@code from} (either may be null for its default): {@code from}
   * defaults to {@code defaultFrom} (the replication factor, capped by the sizes involved), and may be
   * at most {@code clusterSize}.
   *
   * @throws InvalidQuorumException with the message the client gets in a 400
   */
  public static Quorum parse(String ackText, String fromText, int defaultFrom, int clusterSize) {
    int from = fromText == null ? defaultFrom : parseCount("from", fromText);
    int ack = ackText == null ? majorityOf(from) : parseCount("ack", ackText);
    if (from > clusterSize) {
      throw new InvalidQuorumException("from=" + from + " exceeds the cluster size " + clusterSize);
    }
    if (ack > from) {
      throw new InvalidQuorumException("ack=" + ack + " exceeds from=" + from);
    }
    return new Quorum(ack, from);
  }

  /** ASCII digits only: Integer.parseInt alone would also take a sign ({@code +1}, {@code -1}) and non-ASCII digits. */
  private static int parseCount(String name, String text) {
    int value = -1;
    if (!text.isEmpty() && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      try {
        value = Integer.parseInt(text);
      } catch (NumberFormatException beyondIntRange) {
        // answered below
      }
    }
    if (value < 0) {
      throw new InvalidQuorumException(name + " must be a positive integer, got '" + text + "'");
    }
    if (value == 0) {
      throw new InvalidQuorumException(name + " must be at least 1, got 0");
    }
    return value;
  }
}
