/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;

/** Inserts never wait for the eviction lock: they queue, and the next holder adds them. */
class LruTierQueuedInsertTest {
  private static final int KB = 1024;
  private static final long SEED = 4242L;

  private static BlockCacheKey key(String file, long i) {
    return TestBlocks.key(file, i * 100_000L, BlockType.DATA);
  }

  @Test
  void cacheBlock_whileLockHeld_returnsAtOnce_andNextHolderAddsIt() throws Exception {
    LruTier tier = LruTier.builder().maxSize(8L * 1024 * KB).build();
    HFileBlock block = TestBlocks.heap("q", 0, 16 * KB, BlockType.DATA);
    CountDownLatch inserted = new CountDownLatch(1);
    tier.evictionLock.lock();
    try {
      Thread writer = new Thread(() -> {
        tier.cacheBlock(key("q", 0), block, false);
        inserted.countDown();
      });
      writer.start();
      assertTrue(inserted.await(10, TimeUnit.SECONDS), "cacheBlock waited for the lock");
      writer.join();
      assertFalse(tier.containsBlock(key("q", 0)), "queued, not yet in the map");
    } finally {
      tier.evictionLock.unlock();
    }
    tier.checkInvariants(); // takes the lock: adds the queued insert first
    assertTrue(tier.containsBlock(key("q", 0)));
    Cacheable got = tier.getBlock(key("q", 0), true, false, true);
    TestBlocks.assertBlock(key("q", 0), 16 * KB, BlockType.DATA, got);
    got.release();
    tier.shutdown();
    assertEquals(0, tier.getBlockCount());
    block.release();
  }

  @Test
  void cacheBlock_withFullQueue_waitsForTheLock_thenEveryBlockIsCached() throws Exception {
    LruTier tier = LruTier.builder().maxSize(32L * 1024 * KB).build();
    int blocks = LruTier.MAX_QUEUED_INSERTS + 8;
    CountDownLatch done = new CountDownLatch(1);
    Thread writer = new Thread(() -> {
      for (int i = 0; i < blocks; i++) {
        HFileBlock b = TestBlocks.heap("w", i * 100_000L, 4 * KB, BlockType.DATA);
        tier.cacheBlock(key("w", i), b, false);
        b.release();
      }
      done.countDown();
    });
    tier.evictionLock.lock();
    try {
      writer.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!tier.evictionLock.hasQueuedThread(writer) && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertTrue(tier.evictionLock.hasQueuedThread(writer),
          "the insert after a full queue waits for the lock");
      assertEquals(1, done.getCount());
    } finally {
      tier.evictionLock.unlock();
    }
    assertTrue(done.await(10, TimeUnit.SECONDS));
    writer.join();
    tier.checkInvariants();
    assertEquals(blocks, tier.getBlockCount());
    tier.shutdown();
  }

  @Test
  void evictBlocksByHfileName_afterQueuedInsert_removesIt() {
    LruTier tier = LruTier.builder().maxSize(8L * 1024 * KB).build();
    HFileBlock block = TestBlocks.heap("e", 0, 16 * KB, BlockType.DATA);
    tier.evictionLock.lock();
    try {
      Thread writer = new Thread(() -> tier.cacheBlock(key("e", 0), block, false));
      writer.start();
      writer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      tier.evictionLock.unlock();
    }
    assertEquals(1, tier.evictBlocksByHfileName("e"));
    assertFalse(tier.containsBlock(key("e", 0)));
    tier.checkInvariants();
    assertEquals(0, tier.getBlockCount());
    tier.shutdown();
    block.release();
  }

  @Test
  void concurrentInsertsReadsAndEvictions_leaveConsistentState_andServeEveryRead()
      throws Exception {
    LruTier tier = LruTier.builder().maxSize(2L * 1024 * KB).build();
    int threads = 4;
    int ops = 3_000;
    CountDownLatch start = new CountDownLatch(1);
    Thread[] workers = new Thread[threads];
    Throwable[] failure = new Throwable[1];
    for (int t = 0; t < threads; t++) {
      int id = t;
      workers[t] = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(SEED + id);
        try {
          start.await();
          for (int i = 0; i < ops; i++) {
            String file = "f" + random.nextInt(4);
            long index = random.nextInt(64);
            int op = random.nextInt(10);
            if (op == 0) {
              tier.evictBlocksByHfileName(file);
            } else if (op < 5) {
              HFileBlock b = TestBlocks.heap(file, index * 100_000L, 16 * KB, BlockType.DATA);
              tier.cacheBlock(key(file, index), b, false);
              b.release();
            } else {
              Cacheable got = tier.getBlock(key(file, index), true, false, true);
              if (got != null) {
                TestBlocks.assertBlock(key(file, index), 16 * KB, BlockType.DATA, got);
                got.release();
              }
            }
          }
        } catch (Throwable e) {
          synchronized (failure) {
            failure[0] = e;
          }
        }
      });
      workers[t].start();
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    if (failure[0] != null) {
      throw new AssertionError("seed " + SEED, failure[0]);
    }
    tier.checkInvariants();
    assertTrue(tier.getBlockCount() > 0, "seed " + SEED);
    tier.shutdown();
    assertEquals(0, tier.getBlockCount(), "seed " + SEED);
  }
}
