/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Differential tests of the off-heap index against a {@link HashMap}. The index keeps no key: it
 * reads the key of a slot from its record, here a map from handle to key ({@link Records}), which
 * each test fills before it puts a handle, as the allocator's slot records are.
 */
class BlockIndexTest {
  private static final int SLOTS_PER_SLAB = 100;

  private static long key(int file, long offset) {
    return ((long) file << 40) ^ offset;
  }

  /** The slot records the index reads keys from: handle to (file, offset). */
  static final class Records implements BlockIndex.SlotKeys {
    final Map<Long, long[]> byHandle = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong();

    /** A fresh handle whose record describes (file, offset). */
    long describe(int file, long offset) {
      long n = next.getAndIncrement();
      long h = Handles.of((int) (n / SLOTS_PER_SLAB), (int) (n % SLOTS_PER_SLAB));
      byHandle.put(h, new long[] {file, offset});
      return h;
    }

    @Override
    public int fileId(long handle) {
      return (int) byHandle.get(handle)[0];
    }

    @Override
    public long blockOffset(long handle) {
      return byHandle.get(handle)[1];
    }
  }

  private static BlockIndex index(long maxEntries, Records records) {
    return new BlockIndex(maxEntries, SLOTS_PER_SLAB, records);
  }

  @Test
  void randomOps_matchHashMap_throughFillAndDrain() {
    for (long seed = 1; seed <= 5; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      Records records = new Records();
      BlockIndex index = index(20_000, records); // at most 20,000 keys live at once
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
          long handle = records.describe(file, offset);
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
    Records records = new Records();
    BlockIndex index = index(64, records);
    long seven = records.describe(1, 100);
    long eight = records.describe(1, 100);
    index.put(1, 100, seven);
    assertEquals(-1, index.remove(1, 100, eight));
    assertEquals(seven, index.peek(1, 100));
    assertEquals(seven, index.remove(1, 100, seven));
    assertEquals(-1, index.peek(1, 100));
  }

  @Test
  void get_actionRefuses_returnsMinusOne() {
    Records records = new Records();
    BlockIndex index = index(64, records);
    long h42 = records.describe(3, 9);
    index.put(3, 9, h42);
    assertEquals(-1, index.get(3, 9, h -> false));
    assertEquals(h42, index.get(3, 9, h -> h == h42));
  }

  @Test
  void put_manyKeysOfOneSegment_eachFoundByItsRecordAndCheckPasses() {
    Records records = new Records();
    BlockIndex index = index(10_000, records);
    Map<Long, Long> ref = new HashMap<>();
    for (int i = 0; i < 10_000; i++) {
      long h = records.describe(i % 7, i * 4_129L);
      assertEquals(-1, index.put(i % 7, i * 4_129L, h), "key " + i);
      ref.put(key(i % 7, i * 4_129L), h);
    }
    index.check();
    for (int i = 0; i < 10_000; i += 2) {
      assertEquals(ref.remove(key(i % 7, i * 4_129L)), index.remove(i % 7, i * 4_129L, -1));
    }
    index.check();
    Map<Long, Long> seen = new HashMap<>();
    index.forEach((f, o, h) -> seen.put(key(f, o), h));
    assertEquals(ref, seen);
  }

  @Test
  void construct_slotNumbersPast32Bits_refused() {
    assertThrows(IllegalArgumentException.class,
        () -> new BlockIndex(1L << 32, 1 << 20, new Records()));
  }

  @Test
  void concurrentDisjointWriters_allEntriesPresent() throws Exception {
    Records records = new Records();
    BlockIndex index = index(4 * 50_000, records);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    Future<?>[] fs = new Future<?>[4];
    for (int t = 0; t < 4; t++) {
      int file = t;
      fs[t] = pool.submit(() -> {
        for (int i = 0; i < 50_000; i++) {
          long h = records.describe(file, i);
          index.put(file, i, h);
          if (i % 3 == 0) {
            index.remove(file, i, h);
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
        long found = index.peek(t, i);
        assertEquals(i % 3 == 0 ? -1 : i, found < 0 ? -1 : records.blockOffset(found));
      }
    }
  }
}
