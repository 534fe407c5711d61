package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a write of a 16 MiB value over a stored one puts on the heap of the thread that applies it.
 * The stored record is read (one copy), compared in place, and the winner encoded (one copy); the
 * same record again is not written. Before, the stored record was also decoded (a third copy) and
 * the same record written again (heap dumps of 128 MiB nodes that died in UploadOverloadTest held
 * such a replica write as three copies of one value).
 */
class LargeValueWriteTest {
  private static final int VALUE_BYTES = 16 << 20;
  private static final byte[] KEY = "large".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  @Test
  void aLargeWriteOverAStoredValueHoldsNoDecodedCopyAndTheSameRecordAgainIsNotWritten() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      Record first = Record.live(1, value((byte) 1), Record.NEVER, 3);
      Record second = Record.live(2, value((byte) 2), Record.NEVER, 3);
      Record again = Record.live(2, value((byte) 2), Record.NEVER, 3);
      store.apply(KEY, first);

      long before = threads.getCurrentThreadAllocatedBytes();
      store.apply(KEY, second);
      long newer = threads.getCurrentThreadAllocatedBytes() - before;
      before = threads.getCurrentThreadAllocatedBytes();
      Record kept = store.apply(KEY, again);
      long same = threads.getCurrentThreadAllocatedBytes() - before;
      System.out.printf(Locale.ROOT, "a 16 MiB write over a stored one allocated %.2f values; the same record again %.2f%n",
          (double) newer / VALUE_BYTES, (double) same / VALUE_BYTES);

      assertTrue(newer < 2.5 * VALUE_BYTES, "a newer value allocated " + newer + " bytes: the stored one read and the new one"
          + " encoded, no decoded copy");
      assertTrue(same < 1.5 * VALUE_BYTES, "the same record again allocated " + same + " bytes: the stored one read, nothing"
          + " encoded");
      assertEquals(2, kept.version());
      assertArrayEquals(second.value(), store.get(KEY).value());
    }
  }

  private static byte[] value(byte fill) {
    byte[] value = new byte[VALUE_BYTES];
    Arrays.fill(value, fill);
    return value;
  }
}
