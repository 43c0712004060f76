/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.contract.TestBlocks;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;

/**
 * What a 24-byte slot record can describe (issue 15): HFile offsets below 2^40 and blocks of
 * 1 byte to 16 MB. A block outside is refused at insert (counted, never thrown); a bucket size
 * above 16 MB is refused at start-up naming the setting.
 */
class SlotRecordLimitsTest {
  private static final int MB = 1 << 20;
  private static final long LIMIT = 1L << 40;

  @Test
  void cacheBlock_offsetAt2Pow40_refusedAndCounted_justBelow_cached() {
    BucketTier t = BucketTier.builder().capacity(8L * MB).slabSize(MB).build();
    try {
      BlockCacheKey far = TestBlocks.key("big-hfile", LIMIT, BlockType.DATA);
      BlockCacheKey last = TestBlocks.key("big-hfile", LIMIT - 1, BlockType.DATA);
      HFileBlock a = TestBlocks.heap("big-hfile", LIMIT, 4_000, BlockType.DATA);
      HFileBlock b = TestBlocks.heap("big-hfile", LIMIT - 1, 4_000, BlockType.DATA);
      t.cacheBlock(far, a, false, true);
      t.cacheBlock(last, b, false, true);
      a.release();
      b.release();
      t.flush(10_000);
      assertEquals(1, t.getStats().getFailedInserts(), "the block at 2^40 is counted as refused");
      assertNull(t.getBlock(far, true, false, true));
      Cacheable got = t.getBlock(last, true, false, true);
      assertNotNull(got, "the block at 2^40 - 1 is cached");
      TestBlocks.assertBlock(last, 4_000, BlockType.DATA, got);
      got.release();
      assertEquals(1, t.getBlockCount());
      t.checkInvariants();
    } finally {
      t.shutdown();
    }
  }

  @Test
  void bucketSizes_classOver16m_refusedAtStartUpNamingTheSetting() {
    SettingException e = assertThrows(SettingException.class, () -> BucketTier.builder()
        .capacity(128L * MB).slabSize(64L * MB).bucketSizes(5_120, 16 * MB + 256).build());
    assertTrue(e.getMessage().contains("hbase.bucketcache.bucket.sizes"), e.getMessage());
    assertTrue(e.getMessage().contains("16m"), e.getMessage());
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.ioengine", "offheap");
    conf.set("hbase.bucketcache.size", "128");
    conf.set("tiercache.bucket.slab.size", "64m");
    conf.set("hbase.bucketcache.bucket.sizes", "5120," + (32 * MB));
    SettingException fromConf = assertThrows(SettingException.class, () -> new BucketTier(conf));
    assertTrue(fromConf.getMessage().contains("hbase.bucketcache.bucket.sizes"),
        fromConf.getMessage());
    BucketTier exactly16m = BucketTier.builder().capacity(64L * MB).slabSize(32L * MB)
        .bucketSizes(5_120, 16 * MB).build();
    exactly16m.shutdown();
  }

  @Test
  void slotRecord_limitsRoundTrip_beyondRefused() {
    SlabAllocator a = new SlabAllocator(new SizeClasses(new int[] {16 * MB}, 16 * MB), 16L * MB,
        16 * MB);
    long h = a.allocate(0);
    assertTrue(h != Handles.NONE);
    BlockMeta m = new BlockMeta();
    m.fileId = Integer.MAX_VALUE;
    m.blockOffset = LIMIT - 1;
    m.length = 16 * MB;
    m.checksum = 0xCAFEBABE;
    m.flags = BlockMeta.F_DATA | BlockMeta.F_IN_MEMORY | BlockMeta.F_VERIFIED;
    m.deserializer = 255;
    m.type = 0xff;
    m.cachedAt = 0xFFFF;
    a.describe(h, m);
    BlockMeta r = a.read(h, new BlockMeta());
    assertEquals(m.fileId, r.fileId);
    assertEquals(m.blockOffset, r.blockOffset);
    assertEquals(m.length, r.length);
    assertEquals(m.checksum, r.checksum);
    assertEquals(m.flags, r.flags);
    assertEquals(m.deserializer, r.deserializer);
    assertEquals(m.type, r.type);
    assertEquals(m.cachedAt, r.cachedAt);
    assertEquals(3, r.freq, "in memory: frequency 3");
    m.length = 1;
    m.blockOffset = 0;
    a.describe(h, m);
    assertEquals(1, a.length(h));
    assertEquals(0, a.blockOffset(h));
    m.blockOffset = LIMIT;
    assertThrows(IllegalArgumentException.class, () -> a.describe(h, m));
    m.blockOffset = 0;
    m.length = 16 * MB + 1;
    assertThrows(IllegalArgumentException.class, () -> a.describe(h, m));
    m.length = 0;
    assertThrows(IllegalArgumentException.class, () -> a.describe(h, m));
    assertTrue(SlabAllocator.fits(LIMIT - 1, 16 * MB));
    assertTrue(!SlabAllocator.fits(-1, 10) && !SlabAllocator.fits(LIMIT, 10));
  }
}
