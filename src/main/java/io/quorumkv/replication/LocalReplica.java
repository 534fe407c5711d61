package io.quorumkv.replication;

import io.quorumkv.storage.Record;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Future;

/** This node as a replica: straight to its own storage, no HTTP hop. */
public final class LocalReplica implements Replica {
  private final StorageService storage;

  public LocalReplica(StorageService storage) {
    this.storage = storage;
  }

  @Override
  public Future<Record> read(byte[] key) {
    return storage.get(key);
  }

  @Override
  public Future<WriteAnswer> write(byte[] key, Record record) {
    return storage.apply(key, record).map(kept -> WriteAnswer.of(record, kept));
  }
}
