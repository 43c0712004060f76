/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.core.stats.TierStats;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

/**
 * The L2's hit path through the index allocates nothing: a lookup (file by name, its table's
 * optimistic probe, the record's offset, the pin's CAS) and the unpin, for hits and misses.
 */
class IndexLookupAllocationTest {
  private static final int SLOT = 1024;
  private static final int SLAB = 64 * SLOT;

  @Test
  void pinAndUnpin_hitsAndMisses_allocateNothing() {
    SlabAllocator slabs = new SlabAllocator(new SizeClasses(new int[] {SLOT}, SLAB),
        4L * SLAB, SLAB);
    BlockIndex index = new BlockIndex(SlabAllocator.maxSlotsFor(4L * SLAB, SLAB,
        slabs.classes()), slabs.classes().slotsPerSlab(0), BlockStore.slots(slabs));
    BlockStore store = new BlockStore(slabs, index, new TierStats("alloc"), null);
    BlockCacheKey[] keys = new BlockCacheKey[200];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = new BlockCacheKey("file-" + (i % 4), i * 5_000L);
      if (i % 5 != 0) { // one key in five is a miss
        long h = store.allocate(0);
        BlockMeta m = new BlockMeta();
        m.handle = h;
        m.length = 900;
        m.flags = BlockMeta.F_DATA;
        m.type = BlockType.DATA.ordinal();
        assertTrue(store.publish(keys[i], m, () -> true));
      }
    }
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    long hits = 0;
    long least = Long.MAX_VALUE;
    // The least of three rounds, as TableStatsTest: a one-off allocation in a round (a late JIT
    // compilation) is not the path's; an allocation per lookup shows in every round.
    for (int round = 0; round < 3; round++) {
      long before = mx.getThreadAllocatedBytes(tid);
      for (int n = 0; n < 100_000; n++) {
        long h = store.pin(keys[n % keys.length]);
        if (h != Handles.NONE) {
          hits++;
          slabs.unpin(h);
        }
      }
      least = Math.min(least, mx.getThreadAllocatedBytes(tid) - before);
    }
    assertEquals(3 * 80_000, hits);
    assertTrue(least < 1024, least + " bytes allocated by 100k lookups (least of 3)");
  }
}
