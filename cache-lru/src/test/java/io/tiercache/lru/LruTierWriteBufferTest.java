/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The L1's write buffer: an insert that finds the eviction lock held never waits; its block is
 * queued (and a hit while queued) and applied, in order, by the lock's next holder, and dropped
 * if the tier shuts down first. (The L1 keeps heap blocks only, copying shared-memory ones at insert, so a queued block
 * holds no pooled memory.)
 */
class LruTierWriteBufferTest {
  private static final int KB = 1024;
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private static BlockCacheKey data(long i) {
    return TestBlocks.key("f", i * 100_000L, BlockType.DATA);
  }

  /** Holds the tier's eviction lock on a pool thread until {@code release} counts down. */
  private void holdLock(LruTier tier, CountDownLatch release) throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    pool.submit(() -> {
      tier.evictionLock.lock();
      try {
        held.countDown();
        release.await(30, TimeUnit.SECONDS);
      } finally {
        tier.evictionLock.unlock(); // raw unlock: applies nothing queued
      }
      return null;
    });
    assertTrue(held.await(30, TimeUnit.SECONDS));
  }

  @Test
  void cacheBlock_whileTheLockIsHeld_returnsAtOnce_theNextHolderAppliesItInOrder()
      throws Exception {
    LruTier tier = LruTier.builder().maxSize(4L * 1024 * KB).build();
    CountDownLatch release = new CountDownLatch(1);
    holdLock(tier, release);
    List<HFileBlock> blocks = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        HFileBlock b = TestBlocks.heap("f", data(i).getOffset(), 16 * KB, BlockType.DATA);
        blocks.add(b);
        BlockCacheKey key = data(i);
        Future<?> insert = pool.submit(() -> tier.cacheBlock(key, b));
        insert.get(30, TimeUnit.SECONDS); // returns while the lock is still held
        assertEquals(i + 1, tier.queuedWrites());
        assertTrue(tier.containsBlock(key), "a queued block is a hit");
        Cacheable queued = tier.getBlock(key, true, false, true);
        assertNotNull(queued, "a queued block is a hit");
        queued.release();
      }
    } finally {
      release.countDown();
    }
    tier.evictBlock(data(1)); // applies the queue first: the insert precedes the eviction
    for (int i = 0; i < 3; i++) {
      assertEquals(i != 1, tier.containsBlock(data(i)), "block " + i);
    }
    Cacheable hit = tier.getBlock(data(2), true, false, true);
    assertNotNull(hit);
    hit.release();
    tier.checkInvariants();
    assertEquals(0, tier.queuedWrites());
    assertEquals(2, tier.getBlockCount());
    tier.shutdown();
    blocks.forEach(HFileBlock::release);
  }

  @Test
  void shutdown_releasesQueuedInserts() throws Exception {
    LruTier tier = LruTier.builder().maxSize(4L * 1024 * KB).build();
    CountDownLatch release = new CountDownLatch(1);
    holdLock(tier, release);
    HFileBlock b = TestBlocks.heap("f", data(7).getOffset(), 16 * KB, BlockType.DATA);
    try {
      pool.submit(() -> tier.cacheBlock(data(7), b)).get(30, TimeUnit.SECONDS);
      assertEquals(1, tier.queuedWrites());
    } finally {
      release.countDown();
    }
    tier.shutdown();
    assertFalse(tier.containsBlock(data(7)));
    assertEquals(0, tier.queuedWrites(), "shutdown drops what was queued");
    assertEquals(0, tier.getBlockCount());
    b.release();
  }
}
