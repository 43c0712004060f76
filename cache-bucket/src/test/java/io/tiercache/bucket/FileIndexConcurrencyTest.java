/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.alloc.SlotState;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.core.stats.TierStats;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

/**
 * The per-file index under concurrent lookups (optimistic reads that pin), publications (with
 * CLOCK evictions when the L2 is full and table growth), evictions by key and evictions of whole
 * files (table shrink, file entries dropped and made anew), on real slot records and pins, with
 * no engine. A reader must only ever pin a slot whose record describes the key it looked up, and
 * never one that is free; at the end every pin is gone, the invariants hold and clearing frees
 * every slot. Seeded ({@code -Dtiercache.test.seed=N}); the seed is in every failure message.
 */
class FileIndexConcurrencyTest {
  private static final int SLOT = 1024;
  private static final int SLAB = 64 * SLOT;
  private static final int FILES = 12;
  private static final int OFFSETS = 150;
  private static final int OPS = Integer.getInteger("tiercache.test.ops", 60_000);

  private static BlockCacheKey key(int file, int offset) {
    return new BlockCacheKey("file-" + file, offset * 4_099L);
  }

  @Test
  void readersWritersEvictors_pinOnlyTheirKey_andLeaveNothingBehind() throws Exception {
    long seed = Long.getLong("tiercache.test.seed", 42L);
    SlabAllocator slabs = new SlabAllocator(new SizeClasses(new int[] {SLOT}, SLAB),
        8L * SLAB, SLAB); // 512 slots for 1,800 keys: CLOCK evicts all the time
    BlockIndex index = new BlockIndex(SlabAllocator.maxSlotsFor(8L * SLAB, SLAB,
        slabs.classes()), slabs.classes().slotsPerSlab(0), BlockStore.slots(slabs));
    BlockStore store = new BlockStore(slabs, index, new TierStats("concurrency"), null);
    AtomicLong hits = new AtomicLong();
    AtomicLong published = new AtomicLong();
    CyclicBarrier start = new CyclicBarrier(5);
    // Readers begin once the writer has published a slab's worth: before, on 2 cores the readers
    // could finish all their lookups before the writer's first publication (0 hits, a failure
    // that says nothing about the index).
    CountDownLatch firstBlocks = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(5);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      SplittableRandom rnd = new SplittableRandom(seed * 31 + t);
      done.add(pool.submit(() -> {
        start.await();
        assertTrue(firstBlocks.await(60, TimeUnit.SECONDS), "seed " + seed + ": no publication");
        for (int op = 0; op < OPS; op++) {
          int file = rnd.nextInt(FILES);
          int offset = rnd.nextInt(OFFSETS);
          BlockCacheKey k = key(file, offset);
          long h = store.pin(k);
          if (h == Handles.NONE) {
            continue;
          }
          int state = slabs.state(h);
          String ctx = "seed " + seed + ": " + k + " in " + Handles.toString(h);
          assertTrue((state & SlotState.ALLOCATED) != 0 && SlotState.isPinned(state),
              ctx + " pinned but state " + Integer.toHexString(state));
          assertEquals(k.getOffset(), slabs.blockOffset(h), ctx + ": another block's slot");
          assertEquals(4_096 + offset, slabs.length(h), ctx + ": another block's length");
          hits.incrementAndGet();
          slabs.unpin(h);
        }
        return null;
      }));
    }
    SplittableRandom writes = new SplittableRandom(seed * 31 + 3);
    done.add(pool.submit(() -> {
      start.await();
      try {
        write(store, slabs, writes, published, firstBlocks);
      } finally {
        firstBlocks.countDown();
      }
      return null;
    }));
    SplittableRandom evicts = new SplittableRandom(seed * 31 + 4);
    done.add(pool.submit(() -> {
      start.await();
      for (int op = 0; op < OPS / 4; op++) {
        int file = evicts.nextInt(FILES);
        if (evicts.nextInt(50) == 0) {
          String name = "file-" + file;
          for (long blockOffset : store.index.blockOffsets(name)) {
            store.evict(new BlockCacheKey(name, blockOffset), () -> false);
          }
        } else {
          store.evict(key(file, evicts.nextInt(OFFSETS)), () -> false);
        }
      }
      return null;
    }));
    for (Future<?> f : done) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    assertTrue(hits.get() > 0 && published.get() > 0, "seed " + seed + ": " + hits + " hits, "
        + published + " publications");
    store.checkInvariants(8L * SLAB);
    index.forEach((fileId, blockOffset, h) -> assertEquals(0, slabs.pins(h),
        "seed " + seed + ": a pin left on " + Handles.toString(h)));
    store.clear();
    assertEquals(0, slabs.usedSlotBytes(), "seed " + seed + ": a slot leaked");
    assertEquals(0, index.size());
    assertEquals(0, index.files().fileCount(), "seed " + seed + ": a file entry left");
  }

  /** The writer's loop: allocate, publish under a random key, free what it could not publish. */
  private static void write(BlockStore store, SlabAllocator slabs, SplittableRandom writes,
      AtomicLong published, CountDownLatch firstBlocks) {
    for (int op = 0; op < OPS; op++) {
      int file = writes.nextInt(FILES);
      int offset = writes.nextInt(OFFSETS);
      long h = store.allocate(0);
      if (h == Handles.NONE) {
        continue;
      }
      BlockMeta m = new BlockMeta();
      m.handle = h;
      m.length = 4_096 + offset; // the key's own length, so a reader can tell blocks apart
      m.flags = BlockMeta.F_DATA;
      m.type = BlockType.DATA.ordinal();
      if (store.publish(key(file, offset), m, () -> true)) {
        if (published.incrementAndGet() == SLAB / SLOT) {
          firstBlocks.countDown();
        }
      } else {
        slabs.free(h);
      }
    }
  }
}
