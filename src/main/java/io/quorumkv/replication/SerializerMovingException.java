package io.quorumkv.replication;

/** A conditional write of a key whose serializer moves in the cutover under way: to be tried again in a moment. */
public final class SerializerMovingException extends RuntimeException {
  public SerializerMovingException() {
    super("the key's conditional writes move to its new first replica in the topology change under way; retry",
        null, false, false);
  }
}
