/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tiercache.core.contract.TestBlocks;
import java.util.Optional;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;

/** The HBase 2.6 {@code BlockCache} methods that apply to an on-heap L1 (issue 12). */
class LruTierHBaseApiTest {
  private static final int KB = 1024;

  private static LruTier tier() {
    return LruTier.builder().maxSize(8L << 20).build();
  }

  @Test
  void getBlockSize_isTheOnDiskSizeWithHeader_emptyWhenAbsent() {
    LruTier t = tier();
    BlockCacheKey key = TestBlocks.key("f", 4096, BlockType.LEAF_INDEX);
    HFileBlock b = TestBlocks.heap("f", 4096, 3 * KB, BlockType.LEAF_INDEX);
    t.cacheBlock(key, b, false);
    assertEquals(Optional.of(b.getOnDiskSizeWithHeader()), t.getBlockSize(key));
    assertEquals(Optional.empty(), t.getBlockSize(TestBlocks.key("f", 1, BlockType.DATA)));
    t.shutdown();
  }

  @Test
  void evictBlocksRangeByHfileName_evictsOnlyTheRange() {
    LruTier t = tier();
    for (int i = 0; i < 10; i++) {
      t.cacheBlock(TestBlocks.key("f", i * 1000L, BlockType.DATA),
          TestBlocks.heap("f", i * 1000L, KB, BlockType.DATA), false);
    }
    assertEquals(4, t.evictBlocksRangeByHfileName("f", 3000, 6000));
    for (int i = 0; i < 10; i++) {
      assertEquals(i < 3 || i > 6, t.containsBlock(TestBlocks.key("f", i * 1000L,
          BlockType.DATA)), "block " + i);
    }
    assertEquals(6, t.evictBlocksByHfileName("f"));
    t.checkInvariants();
    t.shutdown();
  }
}
