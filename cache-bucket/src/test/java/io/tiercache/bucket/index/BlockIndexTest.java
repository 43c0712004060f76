/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.core.file.HFiles;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Differential tests of the per-file index against a {@link HashMap}. The index keeps no block
 * offset: it reads the key of a slot from its record, here a map from handle to key
 * ({@link Records}), which each test fills before it puts a handle, as the allocator's slot
 * records are. (The index's concurrency with real slot records, pins and evictions is
 * {@code FileIndexConcurrencyTest}'s.)
 */
class BlockIndexTest {
  private static final int SLOTS_PER_SLAB = 100;

  private static String file(int f) {
    return "hfile-" + f;
  }

  private static long key(int file, long offset) {
    return ((long) file << 40) ^ offset;
  }

  /** The slot records the index reads keys from: handle to (file id, offset, length, data). */
  static final class Records implements BlockIndex.Slots {
    final Map<Long, long[]> byHandle = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong();
    final AtomicInteger pins = new AtomicInteger();
    volatile boolean refusePins;

    /** A fresh handle whose record describes (file, offset), {@code length} bytes. */
    long describe(int file, long offset, int length) {
      long n = next.getAndIncrement();
      long h = Handles.of((int) (n / SLOTS_PER_SLAB), (int) (n % SLOTS_PER_SLAB));
      byHandle.put(h, new long[] {-1, offset, length});
      return h;
    }

    long describe(int file, long offset) {
      return describe(file, offset, 100);
    }

    @Override
    public int fileId(long handle) {
      return (int) byHandle.get(handle)[0];
    }

    @Override
    public long blockOffset(long handle) {
      return byHandle.get(handle)[1];
    }

    @Override
    public void fileId(long handle, int fileId) {
      byHandle.get(handle)[0] = fileId;
    }

    @Override
    public boolean pin(long handle) {
      if (refusePins) {
        return false;
      }
      pins.incrementAndGet();
      return true;
    }

    @Override
    public void unpin(long handle) {
      pins.decrementAndGet();
    }

    @Override
    public int length(long handle) {
      return (int) byHandle.get(handle)[2];
    }

    @Override
    public boolean isData(long handle) {
      return true;
    }
  }

  private static BlockIndex index(long maxSlots, Records records) {
    return new BlockIndex(maxSlots, SLOTS_PER_SLAB, records);
  }

  /** Every table between 3/16 and 13/16 full (or at its least capacity). */
  private static void assertLoadBounded(BlockIndex index, String ctx) {
    for (HFiles.Entry<FileTable> e : index.files().entries()) {
      synchronized (e) {
        int cap = e.blocks.capacity();
        int size = e.blocks.size();
        assertTrue(size * 16L <= cap * 13L, ctx + ": " + e.name + " " + size + "/" + cap);
        assertTrue(cap == FileTable.MIN_CAPACITY || size * 16L >= cap * 3L,
            ctx + ": " + e.name + " " + size + "/" + cap + " not shrunk");
      }
    }
  }

  @Test
  void randomOps_matchHashMap_throughGrowthAndShrink() {
    for (long seed = 1; seed <= 5; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      Records records = new Records();
      BlockIndex index = index(1_000_000, records);
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
          assertEquals(old == null ? -1 : old, index.put(file(file), null, offset, handle), ctx);
        } else if (dice < 8) {
          Long old = ref.remove(k);
          assertEquals(old == null ? -1 : old, index.remove(file(file), offset, -1), ctx);
        } else {
          Long v = ref.get(k);
          assertEquals(v == null ? -1 : v, index.peek(file(file), offset), ctx);
        }
        if (op % 10_000 == 0) {
          assertLoadBounded(index, ctx);
          index.check();
        }
      }
      assertEquals(ref.size(), index.size());
      Map<Long, Long> seen = new HashMap<>();
      index.forEach((f, o, h) -> {
        assertEquals(f, records.fileId(h), "the record names the file whose table holds it");
        seen.put(key(Integer.parseInt(index.files().nameOf(f).substring(6)), o), h);
      });
      assertEquals(ref, seen, "seed " + seed);
      index.check();
    }
  }

  @Test
  void removeAll_filesUnregistered_tablesBackToLeast() {
    Records records = new Records();
    BlockIndex index = index(100_000, records);
    for (int i = 0; i < 10_000; i++) {
      index.put(file(i % 3), null, i * 4_129L, records.describe(i % 3, i * 4_129L));
    }
    int grown = index.files().get(file(0)).blocks.capacity();
    assertTrue(grown >= 3_333 * 16 / 13, "capacity " + grown);
    assertTrue(grown <= 3_334 * 16 / 9 + 2, "capacity " + grown + ": at most 9/16 full after growth");
    for (int i = 0; i < 9_990; i++) {
      index.remove(file(i % 3), i * 4_129L, -1);
    }
    assertLoadBounded(index, "after removals");
    index.check();
    for (int i = 9_990; i < 10_000; i++) {
      index.remove(file(i % 3), i * 4_129L, -1);
    }
    assertEquals(0, index.size());
    assertEquals(0, index.files().fileCount(), "a file with no block left is unregistered");
    assertEquals(-1, index.files().idOf(file(0)));
  }

  @Test
  void remove_withWrongExpectedHandle_keepsEntry() {
    Records records = new Records();
    BlockIndex index = index(64, records);
    long seven = records.describe(1, 100);
    long eight = records.describe(1, 100);
    index.put(file(1), null, 100, seven);
    assertEquals(-1, index.remove(file(1), 100, eight));
    assertEquals(seven, index.peek(file(1), 100));
    assertEquals(seven, index.remove(file(1), 100, seven));
    assertEquals(-1, index.peek(file(1), 100));
  }

  @Test
  void pin_slotRefusesPin_returnsNoneAndHoldsNothing() {
    Records records = new Records();
    BlockIndex index = index(64, records);
    long h42 = records.describe(3, 9);
    index.put(file(3), null, 9, h42);
    records.refusePins = true;
    assertEquals(-1, index.pin(file(3), 9));
    records.refusePins = false;
    assertEquals(h42, index.pin(file(3), 9));
    assertEquals(1, records.pins.get());
    assertEquals(-1, index.pin(file(3), 10));
    assertEquals(-1, index.pin(file(4), 9));
    assertEquals(1, records.pins.get(), "a miss pins nothing");
  }

  @Test
  void put_recordWithStaleFileId_fileIdSetToTheFilesEntry() {
    Records records = new Records();
    BlockIndex index = index(64, records);
    int id = index.idFor(file(1));
    index.forgetIfEmpty(file(1)); // the entry that id named is gone
    long h = records.describe(1, 5);
    records.fileId(h, id);
    index.put(file(1), null, 5, h);
    assertTrue(records.fileId(h) != id, "a new entry, a new id");
    assertEquals(index.files().idOf(file(1)), records.fileId(h));
    index.check();
  }

  @Test
  void residency_bytesAndDataBlocksFollowPutsReplacementsAndRemovals() {
    Records records = new Records();
    BlockIndex index = index(64, records);
    index.put("f", "r1", 0, records.describe(0, 0, 1000));
    index.put("f", null, 1000, records.describe(0, 1000, 500));
    assertEquals(2, index.files().dataBlocksOf("f"));
    assertEquals(Map.of("r1", 1500L), index.files().regionBytes());
    index.put("f", null, 1000, records.describe(0, 1000, 600)); // replaced
    assertEquals(2, index.files().dataBlocksOf("f"));
    assertEquals(Map.of("r1", 1600L), index.files().regionBytes());
    index.remove("f", 0, -1);
    assertEquals(Map.of("r1", 600L), index.files().regionBytes());
    assertEquals("r1", index.files().regionOf("f"));
  }

  @Test
  void tagCollisions_noTagBits_everyKeyFoundByItsRecord() {
    Records records = new Records();
    // 4,095 slabs of 2^20 slots: slot numbers take all 32 bits, so every entry's tag is 0 and
    // every probe that meets an entry reads its record.
    BlockIndex index = new BlockIndex(4_095L << 20, 1 << 20, records);
    assertEquals(0, index.tagBits());
    Map<Long, Long> ref = new HashMap<>();
    SplittableRandom rnd = new SplittableRandom(7);
    for (int i = 0; i < 5_000; i++) {
      long offset = rnd.nextLong(1L << 40);
      long h = Handles.of(4_094 - (i % 7), (1 << 20) - 1 - i); // the highest slot numbers
      records.byHandle.put(h, new long[] {-1, offset, 10});
      ref.put(offset, h);
      index.put("one", null, offset, h);
    }
    index.check();
    for (Map.Entry<Long, Long> e : ref.entrySet()) {
      assertEquals(e.getValue(), index.peek("one", e.getKey()), "offset " + e.getKey());
      assertEquals(-1, index.peek("one", e.getKey() + 1));
    }
  }

  @Test
  void tagCollisions_fewTagBits_sameTagKeysEachFoundByItsRecord() {
    Records records = new Records();
    BlockIndex index = index(1L << 22, records); // 2^22 slots of 100 per slab: 9 tag bits
    int bits = index.tagBits();
    assertTrue(bits > 0 && bits < 16, "tag bits " + bits);
    // Offsets chosen so that all share one tag: each probe meets same-tag entries.
    long wanted = index.tag(BlockIndex.hash(0));
    Map<Long, Long> ref = new HashMap<>();
    for (long offset = 0; ref.size() < 2_000; offset += 33) {
      if (index.tag(BlockIndex.hash(offset)) == wanted) {
        long h = records.describe(0, offset);
        ref.put(offset, h);
        index.put("f", null, offset, h);
      }
    }
    index.check();
    for (Map.Entry<Long, Long> e : ref.entrySet()) {
      assertEquals(e.getValue(), index.peek("f", e.getKey()));
    }
    int removed = 0;
    for (long offset : ref.keySet()) {
      if (removed++ % 2 == 0) {
        assertEquals(ref.get(offset), index.remove("f", offset, -1));
      }
    }
    index.check();
  }

  @Test
  void construct_slotNumbersPast32Bits_refused() {
    assertThrows(IllegalArgumentException.class,
        () -> new BlockIndex(1L << 32, 1 << 20, new Records()));
  }

  @Test
  void blockOffsets_listsExactlyTheFilesBlocks() {
    Records records = new Records();
    BlockIndex index = index(1_000, records);
    for (int i = 0; i < 300; i++) {
      index.put(file(i % 2), null, i, records.describe(i % 2, i));
    }
    long[] offsets = index.blockOffsets(file(1));
    java.util.Arrays.sort(offsets);
    assertEquals(150, offsets.length);
    for (int i = 0; i < 150; i++) {
      assertEquals(2 * i + 1, offsets[i]);
    }
    assertEquals(0, index.blockOffsets("none").length);
  }

  @Test
  void cursor_visitsEveryEntryOnce_inSmallBatches() {
    Records records = new Records();
    BlockIndex index = index(10_000, records);
    Map<Long, Long> ref = new HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      long h = records.describe(i % 13, i);
      index.put(file(i % 13), null, i, h);
      ref.put(key(i % 13, i), h);
    }
    BlockIndex.Cursor c = index.cursor(7);
    Map<Long, Long> seen = new HashMap<>();
    while (c.next()) {
      long h = c.handle();
      assertEquals(null, seen.put(key(Integer.parseInt(c.file().substring(6)),
          records.blockOffset(h)), h));
    }
    assertEquals(ref, seen);
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
          index.put(file(file), null, i, h);
          if (i % 3 == 0) {
            index.remove(file(file), i, h);
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
        long found = index.peek(file(t), i);
        assertEquals(i % 3 == 0 ? -1 : i, found < 0 ? -1 : records.blockOffset(found));
      }
    }
    index.check();
  }
}
