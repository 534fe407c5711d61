package io.quorumkv.backup;

import io.quorumkv.storage.Record;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.BatchOperations.Operation;

import java.util.ArrayList;
import java.util.List;

/** Records on their way to the cluster in one request (a {@code wire.BatchOperations} frame of writes), in key order. */
final class RestoreBatch {
  /** A batch stops growing past this many key and value bytes (a single larger record goes alone). */
  static final int MAX_BYTES = 1 << 20;

  private final List<Operation> operations = new ArrayList<>();
  private int bytes;
  private int tombstones;

  void add(byte[] key, Record record) {
    operations.add(new Operation(key, record));
    bytes += key.length + record.value().length;
    if (record.tombstone()) {
      tombstones++;
    }
  }

  boolean full(int maxRecords) {
    return operations.size() >= maxRecords || bytes >= MAX_BYTES;
  }

  boolean isEmpty() {
    return operations.isEmpty();
  }

  int size() {
    return operations.size();
  }

  int tombstones() {
    return tombstones;
  }

  byte[] lastKey() {
    return operations.get(operations.size() - 1).key();
  }

  byte[] encode() {
    return BatchOperations.encode(operations).getBytes();
  }
}
