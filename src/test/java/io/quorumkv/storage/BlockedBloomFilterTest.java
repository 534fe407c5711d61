package io.quorumkv.storage;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockedBloomFilterTest {
  private static final double BITS_PER_KEY = 9.6;

  @Test
  void everyKeyPutIsNoLongerNew() {
    Random random = new Random(1);
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      byte[] key = new byte[1 + random.nextInt(32)];
      random.nextBytes(key);
      keys.add(key);
    }
    BlockedBloomFilter filter = new BlockedBloomFilter(keys.size(), BITS_PER_KEY);
    keys.forEach(filter::put);

    long stillNew = keys.stream().filter(filter::put).count();

    assertEquals(0, stillNew, "keys put before but answered as new");
  }

  @Test
  void freshKeysAreRarelyTakenForStoredOnesAtTheSizedNumberOfKeys() {
    int stored = 1_000_000;
    int fresh = 50_000;
    BlockedBloomFilter filter = new BlockedBloomFilter(stored, BITS_PER_KEY);
    for (int i = 0; i < stored; i++) {
      filter.put(bytes("user:" + i));
    }

    int falsePositives = 0;
    for (int i = 0; i < fresh; i++) {
      if (!filter.put(bytes("fresh:" + i))) {
        falsePositives++;
      }
    }

    double rate = (double) falsePositives / fresh;
    assertTrue(rate < 0.03, "false positives " + rate);
    assertTrue(rate > 0.001, "false positives " + rate + ": far fewer than its size allows, so is it sized right?");
  }

  @Test
  void concurrentPutsOfDisjointKeysLoseNoBits() throws Exception {
    int threads = 4;
    int keysEach = 2_000;
    for (int round = 0; round < 50; round++) {
      // Few blocks, so the threads keep setting bits in the same words at once.
      BlockedBloomFilter filter = new BlockedBloomFilter(threads * keysEach, BITS_PER_KEY);
      CyclicBarrier start = new CyclicBarrier(threads);
      List<Thread> putters = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String prefix = "r" + round + "t" + t + ":";
        Thread putter = new Thread(() -> {
          await(start);
          for (int i = 0; i < keysEach; i++) {
            filter.put(bytes(prefix + i));
          }
        });
        putter.start();
        putters.add(putter);
      }
      for (Thread putter : putters) {
        putter.join();
      }

      for (int t = 0; t < threads; t++) {
        for (int i = 0; i < keysEach; i++) {
          String key = "r" + round + "t" + t + ":" + i;
          assertFalse(filter.put(bytes(key)), "a bit of " + key + " was lost");
        }
      }
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
