/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint streams the index: the heap bytes it allocates do not grow with the number of
 * cached blocks (issue 14; it used to allocate about 90 bytes per block: an entry object, a list
 * slot and a boxed file id each).
 *
 * <p>The heap bytes the checkpointing thread allocates ({@code
 * com.sun.management.ThreadMXBean#getThreadAllocatedBytes}) are measured for one checkpoint of
 * a {@code file:} L2 holding {@code small} blocks and of one holding {@code large} blocks (the
 * least of three checkpoints each, after two to warm up); their difference divided by {@code
 * large - small} must stay under one byte per block. By default 10,000 and 50,000 blocks; {@code
 * -Dtiercache.checkpoint.blocks=100000,1000000} measures at other sizes (that is how the figures
 * in docs/architecture.md were taken).
 */
class CheckpointAllocationTest {
  private static final int SLOT = 512;
  private static final int PAYLOAD = 200;
  private static final long MB = 1 << 20;
  private static final int FILES = 50;

  @TempDir
  Path dir;

  @Test
  void checkpoint_heapAllocation_doesNotGrowWithTheBlockCount() throws Exception {
    String[] sizes = System.getProperty("tiercache.checkpoint.blocks", "10000,50000").split(",");
    int small = Integer.parseInt(sizes[0].trim());
    int large = Integer.parseInt(sizes[1].trim());
    long atSmall = allocatedPerCheckpoint(small, "small");
    long atLarge = allocatedPerCheckpoint(large, "large");
    double perBlock = (double) (atLarge - atSmall) / (large - small);
    System.out.printf("[issue-14] checkpoint heap allocation: %,d blocks %,d bytes; %,d blocks "
        + "%,d bytes; growth %.3f bytes per block%n", small, atSmall, large, atLarge, perBlock);
    assertTrue(perBlock < 1.0, "a checkpoint allocates " + perBlock + " heap bytes per cached "
        + "block (" + small + " blocks: " + atSmall + " B, " + large + " blocks: " + atLarge
        + " B)");
  }

  /** The least heap allocation of three checkpoints of an L2 holding {@code blocks} blocks. */
  private long allocatedPerCheckpoint(int blocks, String name) throws Exception {
    long capacity = ((long) blocks * SLOT / MB + 2) * MB;
    BucketTier t = BucketTier.builder().ioEngine("file:" + dir.resolve(name + ".cache"))
        .capacity(capacity).slabSize(MB).bucketSizes(SLOT)
        .persistentPath(dir.resolve(name + ".ckpt").toString())
        .persistIntervalMs(3_600_000).build();
    try {
      assertTrue(t.waitForCacheInitialization(60_000), "a cold start is ready at once");
      for (int i = 0; i < blocks; i++) {
        cache(t, i);
        if (i % 10_000 == 9_999) {
          assertTrue(t.flush(60_000), "writers idle");
        }
      }
      assertTrue(t.flush(60_000), "writers idle");
      assertEquals(blocks, t.getBlockCount(), "every block cached");
      com.sun.management.ThreadMXBean mx =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long thread = Thread.currentThread().getId();
      long least = Long.MAX_VALUE;
      for (int round = 0; round < 5; round++) {
        cache(t, blocks + round); // a change, so the checkpoint is written
        assertTrue(t.flush(60_000), "writers idle");
        long before = mx.getThreadAllocatedBytes(thread);
        assertTrue(t.checkpoint(), "a checkpoint was written");
        long allocated = mx.getThreadAllocatedBytes(thread) - before;
        if (round >= 2) {
          least = Math.min(least, allocated);
        }
      }
      return least;
    } finally {
      t.shutdown();
    }
  }

  private static void cache(BucketTier t, int i) {
    BlockCacheKey key = TestBlocks.key("hf-" + (i % FILES), (long) (i / FILES) * 1_000,
        BlockType.DATA);
    HFileBlock b = TestBlocks.heap(key.getHfileName(), key.getOffset(), PAYLOAD, BlockType.DATA);
    t.cacheBlock(key, b, false, true);
    b.release();
  }
}
