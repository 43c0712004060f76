/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.stats.TierStats;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

/**
 * The L2's metadata per cached block, heap and off heap together (issue 15): an L2 sized for
 * {@code N} blocks of 4 KB (the default bucket sizes, so each takes a 5 KB slot of the
 * smallest class, the class the slot records are sized for) is filled with {@code N} blocks
 * through {@link BlockStore} — allocation, slot record, and the index with its per-file tables
 * and file entries, as a writer publishes them, without the blocks' bytes (no engine: the bytes
 * are not metadata).
 * Direct bytes are the JVM's direct buffer pool growth from before the allocator and index are
 * built; heap bytes the live-heap growth (after GCs) from the empty store to the full one; both
 * divided by {@code N}. Blocks come from 1,000 files, in offset order per file.
 *
 * <p>By default 100,000 blocks; {@code -Dtiercache.footprint.blocks=1000000,4000000} measures at
 * other sizes (that is how the figures in docs/architecture.md were taken; 4 M blocks need
 * {@code -DargLine="-Xmx2g -XX:MaxDirectMemorySize=2g"}, the default).
 */
class MetadataFootprintTest {
  private static final int BLOCK = 4096;
  private static final int FILES = 1_000;
  private static final long MB = 1 << 20;

  @Test
  void fill_4kBlocks_metadataBytesPerBlockReported() throws Exception {
    for (String n : System.getProperty("tiercache.footprint.blocks", "100000").split(",")) {
      measure(Integer.parseInt(n.trim()));
    }
  }

  private static void measure(int blocks) throws Exception {
    SizeClasses classes = new SizeClasses(CacheSettings.L2_BUCKET_SIZES.defaultValue(),
        (int) (4 * MB));
    long slotsPerSlab = classes.slotsPerSlab(0);
    long capacity = ((blocks + slotsPerSlab - 1) / slotsPerSlab) * 4 * MB;
    long direct0 = directBytes();
    SlabAllocator slabs = new SlabAllocator(classes, capacity, (int) (4 * MB));
    BlockIndex index = new BlockIndex(SlabAllocator.maxSlotsFor(capacity, (int) (4 * MB),
        classes), classes.slotsPerSlab(0), BlockStore.slots(slabs));
    BlockStore store = new BlockStore(slabs, index, new TierStats("footprint"), null);
    long direct = directBytes() - direct0;
    long heap0 = liveHeap();
    int perFile = (blocks + FILES - 1) / FILES;
    for (int i = 0; i < blocks; i++) {
      long h = store.allocate(0);
      assertNotEquals(Handles.NONE, h, "a slot for block " + i);
      BlockMeta m = new BlockMeta();
      m.handle = h;
      m.length = BLOCK;
      m.flags = BlockMeta.F_DATA;
      m.type = BlockType.DATA.ordinal();
      BlockCacheKey key = new BlockCacheKey("footprint-hfile-" + (i / perFile),
          (long) (i % perFile) * (BLOCK + 33));
      assertTrue(store.publish(key, m, () -> true), "block " + i + " published");
    }
    assertEquals(blocks, store.blocks());
    long heap = liveHeap() - heap0;
    System.out.printf("[issue-15] metadata per block at %,d blocks of 4 KB: %.1f B direct "
        + "(slot records %,d B) + %.1f B heap (index tables and file entries %,d B) = %.1f B%n",
        blocks, (double) direct / blocks, slabs.recordBytes(), (double) heap / blocks,
        index.heapBytes(), (double) (direct + heap) / blocks);
    store.clear();
    java.lang.ref.Reference.reachabilityFence(store);
  }

  private static long directBytes() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    throw new AssertionError("no direct buffer pool");
  }

  private static long liveHeap() throws InterruptedException {
    MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      least = Math.min(least, mx.getHeapMemoryUsage().getUsed());
    }
    return least;
  }
}
