/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Shutdown racing readers and file evictions on a {@code pmem:} L2, whose index lives in the
 * pool. Once the tier is closed, the last reader to release a block closes the engine; before
 * the shutdown held the engine open itself until its store was cleared, a reader's release
 * could close the pool mid-shutdown, and an eviction then failed in the pool's index after
 * taking its block out of the L2's, leaving the block counted (found by
 * {@code TieredBlockCacheStressTest}, exclusive mode on {@code pmem:}, about one run in ten).
 */
class PmemShutdownRaceTest {
  private static final int MB = 1 << 20;
  private static final int ROUNDS = 40;
  private static final int BLOCKS = 60;
  private static final int SIZE = 5 * 1024;
  private static final long SEED = 20261127L;

  private final PoolDir pools = new PoolDir();

  @AfterEach
  void removePools() {
    pools.close();
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("hf-" + (i % 3), i * 100_000L, BlockType.DATA);
  }

  private static void cache(BucketTier t, int i) {
    HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), SIZE,
        BlockType.DATA);
    t.cacheBlock(key(i), b, false, true);
    b.release();
  }

  @Test
  void shutdown_racingReadersAndFileEvictions_leavesNothingCountedAndNothingFails()
      throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      Path pool = pools.resolve("l2-" + round + ".pool");
      BucketTier t = BucketTier.builder().ioEngine("pmem:" + pool).pmemBackend("dax")
          .capacity(4L * MB).slabSize(MB).bucketSizes(SIZE + 1024).writers(1, 8).build();
      for (int i = 0; i < BLOCKS; i++) {
        cache(t, i);
      }
      String where = "seed " + SEED + ", round " + round;
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch going = new CountDownLatch(2); // both threads past their first ops
      long seed = SEED + round;
      Thread reader = new Thread(() -> {
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int op = 0; op < 200_000 && !stop.get(); op++) {
          if (op == 100) {
            going.countDown();
          }
          Cacheable b = t.getBlock(key(rnd.nextInt(BLOCKS)), true, false, true);
          if (b != null) {
            b.release();
          }
        }
      });
      Thread evictor = new Thread(() -> {
        SplittableRandom rnd = new SplittableRandom(~seed);
        for (int op = 0; op < 200_000 && !stop.get(); op++) {
          if (op == 3) {
            going.countDown();
          }
          int f = rnd.nextInt(3);
          t.evictBlocksByHfileName("hf-" + f);
          for (int i = f; i < BLOCKS; i += 3) {
            cache(t, i);
          }
        }
      });
      reader.start();
      evictor.start();
      going.await(60, TimeUnit.SECONDS);
      t.shutdown();
      stop.set(true);
      reader.join(60_000);
      evictor.join(60_000);
      assertFalse(reader.isAlive() || evictor.isAlive(), "threads still running, " + where);
      assertEquals(0, t.getBlockCount(), "blocks counted after shutdown, " + where);
      assertEquals(0, t.unexpectedFailures(), "failures caught inside the L2, " + where);
      Files.deleteIfExists(pool); // every block is released: the pool is closed
      Files.deleteIfExists(pool.resolveSibling(pool.getFileName() + ".lock"));
    }
  }
}
