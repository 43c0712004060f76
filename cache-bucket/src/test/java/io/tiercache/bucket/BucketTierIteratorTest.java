/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheUtil;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The web UI's walk over the L2 (issue 14): {@link BucketTier#iterator()} makes blocks as they
 * are asked for, so a walk HBase stops early ({@code hbase.ui.blockcache.by.file.max}) costs heap
 * for what it walked, not for the whole cache. Prints its measurements on {@code [issue-14]}
 * lines.
 */
class BucketTierIteratorTest {
  private static final int BLOCKS = 100_000;
  private static BucketTier tier;

  @BeforeAll
  static void fill() {
    tier = BucketTier.builder().ioEngine("offheap").capacity(128L << 20).bucketSizes(1024)
        .slabSize(1 << 20).writers(1, 64).build();
    for (int i = 0; i < BLOCKS; i++) {
      String file = "file" + (i % 100);
      tier.cacheBlock(TestBlocks.key(file, i * 1000L, BlockType.DATA),
          TestBlocks.heap(file, i * 1000L, 200, BlockType.DATA), false, true);
    }
    assertEquals(BLOCKS, tier.getBlockCount());
  }

  @AfterAll
  static void shutdown() {
    tier.shutdown();
  }

  private static long allocated() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getThreadAllocatedBytes(Thread.currentThread().getId());
  }

  @Test
  void iterator_firstBlock_costsABatchNotTheCache() {
    for (int i = 0; i < 3; i++) { // warm up the classes and the JIT
      tier.iterator().next();
    }
    long before = allocated();
    Iterator<CachedBlock> it = tier.iterator();
    CachedBlock first = it.next();
    long bytes = allocated() - before;
    System.out.println("[issue-14] L2 iterator() + next() at " + BLOCKS + " blocks: " + bytes
        + " heap bytes allocated");
    assertTrue(first.getSize() > 200);
    assertTrue(bytes < 64 * 1024, bytes + " bytes for the first of " + BLOCKS + " blocks (6.1 MB "
        + "when the L2 materialized every block)");
  }

  @Test
  void iterator_walksEveryBlockOnce() {
    Set<String> seen = new HashSet<>();
    long before = allocated();
    int n = 0;
    for (CachedBlock b : tier) {
      n++;
      seen.add(b.getFilename() + "@" + b.getOffset());
    }
    System.out.println("[issue-14] L2 full walk of " + n + " blocks (HashSet of names included): "
        + (allocated() - before) / n + " heap bytes allocated per block");
    assertEquals(BLOCKS, n);
    assertEquals(BLOCKS, seen.size());
  }

  @Test
  void hbaseBlockCacheUtil_byFileView_stopsAtItsLimit() {
    Configuration conf = new Configuration(false);
    conf.setInt("hbase.ui.blockcache.by.file.max", 1000);
    long before = allocated();
    BlockCacheUtil.CachedBlocksByFile byFile = BlockCacheUtil.getLoadedCachedBlocksByFile(conf,
        tier);
    long bytes = allocated() - before;
    System.out.println("[issue-14] HBase's CachedBlocksByFile (max 1000) over " + BLOCKS
        + " L2 blocks: " + bytes + " heap bytes allocated");
    assertTrue(byFile.isFull());
    assertEquals(1000, byFile.getCount());
    assertTrue(bytes < 4 << 20, bytes + " bytes (8.7 MB when the L2 materialized every block)");
  }
}
