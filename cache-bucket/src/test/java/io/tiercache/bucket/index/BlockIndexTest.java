/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Differential tests of the off-heap index against a {@link HashMap}. */
class BlockIndexTest {
  private static long key(int file, long offset) {
    return ((long) file << 40) ^ offset;
  }

  @Test
  void randomOps_matchHashMap_throughFillAndDrain() {
    for (long seed = 1; seed <= 5; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      BlockIndex index = new BlockIndex(20_000);
      Map<Long, Long> ref = new HashMap<>();
      int universe = 20_000;
      for (int op = 0; op < 200_000; op++) {
        int file = rnd.nextInt(50);
        long offset = rnd.nextInt(universe / 50) * 65_536L;
        long k = key(file, offset);
        String ctx = "seed " + seed + " op " + op;
        int dice = rnd.nextInt(10);
        // Grow phases (mostly puts) then shrink phases (mostly removes).
        boolean growing = (op / 40_000) % 2 == 0;
        if (dice < (growing ? 6 : 2)) {
          long handle = rnd.nextLong() & Long.MAX_VALUE;
          Long old = ref.put(k, handle);
          assertEquals(old == null ? -1 : old, index.put(file, offset, handle), ctx);
        } else if (dice < 8) {
          Long old = ref.remove(k);
          assertEquals(old == null ? -1 : old, index.remove(file, offset, -1), ctx);
        } else {
          Long v = ref.get(k);
          assertEquals(v == null ? -1 : v, index.peek(file, offset), ctx);
        }
      }
      assertEquals(ref.size(), index.size());
      Map<Long, Long> seen = new HashMap<>();
      index.forEach((f, o, h) -> seen.put(key(f, o), h));
      assertEquals(ref, seen);
    }
  }

  @Test
  void remove_withWrongExpectedHandle_keepsEntry() {
    BlockIndex index = new BlockIndex(64);
    index.put(1, 100, 7);
    assertEquals(-1, index.remove(1, 100, 8));
    assertEquals(7, index.peek(1, 100));
    assertEquals(7, index.remove(1, 100, 7));
    assertEquals(-1, index.peek(1, 100));
  }

  @Test
  void get_actionRefuses_returnsMinusOne() {
    BlockIndex index = new BlockIndex(64);
    index.put(3, 9, 42);
    assertEquals(-1, index.get(3, 9, h -> false));
    assertEquals(42, index.get(3, 9, h -> h == 42));
  }

  @Test
  void concurrentDisjointWriters_allEntriesPresent() throws Exception {
    BlockIndex index = new BlockIndex(4 * 50_000);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    Future<?>[] fs = new Future<?>[4];
    for (int t = 0; t < 4; t++) {
      int file = t;
      fs[t] = pool.submit(() -> {
        for (int i = 0; i < 50_000; i++) {
          index.put(file, i, i);
          if (i % 3 == 0) {
            index.remove(file, i, i);
          }
        }
      });
    }
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    long expected = 4L * (50_000 - 16_667);
    assertEquals(expected, index.size());
    for (int t = 0; t < 4; t++) {
      for (int i = 0; i < 50_000; i++) {
        assertEquals(i % 3 == 0 ? -1 : i, index.peek(t, i));
      }
    }
  }
}
