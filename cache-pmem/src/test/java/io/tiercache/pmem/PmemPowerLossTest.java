/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Power loss for the pmem pool, simulated by {@link PowerLossRegion}: stores not yet flushed are
 * lost or kept line by line at random when the power goes, at a seeded point of a churn of
 * publications, removals, capacity evictions and slab moves (or of the pool's format). The pool
 * the power loss left is then opened with the real dax back end. Checks the publish protocol's
 * two promises: no block is ever served with wrong bytes, and every block that was in the L2's
 * index both before and after the operation the power cut (so its record was sealed and flushed,
 * and not unsealed) is restored and served. Seed: {@code -Dtiercache.test.seed=N}.
 */
class PmemPowerLossTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261124L);
  private static final int ROUNDS = Integer.getInteger("tiercache.powerloss.rounds", 8);
  private static final int MB = 1 << 20;
  private static final int[] SIZES = {5 * 1024, 33 * 1024, 65 * 1024};
  private static final int MAX_WRITES = 1_500;

  private final PoolDir pools = new PoolDir();

  @AfterEach
  void removePools() {
    pools.close();
  }

  private static BucketTier open(String engine) {
    BucketTier t = BucketTier.builder().ioEngine(engine).pmemBackend("dax").capacity(4L * MB)
        .slabSize(MB).bucketSizes(SIZES).writers(1, 8).build();
    if (!t.waitForCacheInitialization(60_000)) {
      throw new AssertionError("the background restore did not finish in 60 s");
    }
    return t;
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("power-" + (i % 5), i * 70_000L, BlockType.DATA);
  }

  /** Two size classes, changing share over time, so slabs also move between classes. */
  private static int size(int i) {
    return (i / 200) % 2 == 0 ? (i % 3 == 0 ? 20_000 : 3_000) : (i % 3 == 0 ? 3_000 : 20_000);
  }

  private static Set<String> live(BucketTier t) {
    Set<String> out = new HashSet<>();
    for (CachedBlock b : t) {
      out.add(b.getFilename() + "@" + b.getOffset());
    }
    return out;
  }

  private static String name(BlockCacheKey k) {
    return k.getHfileName() + "@" + k.getOffset();
  }

  @Test
  void powerLoss_atASeededStoreOrFlush_neverWrongBytes_keepsEveryBlockPublishedBefore()
      throws Exception {
    SplittableRandom rnd = new SplittableRandom(SEED);
    long totalRestored = 0;
    long totalExpected = 0;
    for (int round = 0; round < ROUNDS; round++) {
      Path pool = pools.resolve("power-" + round + ".pool");
      // Round 0 loses power during the pool's format; the others during the churn.
      long crashSeed = rnd.nextLong();
      long crashOp = round == 0 ? 1 + rnd.nextInt(6) : 20 + rnd.nextInt(6_000);
      String where = "seed " + SEED + ", round " + round + ", power lost before store/flush "
          + crashOp;
      BucketTier t;
      Set<String> expected = new HashSet<>();
      int written = 0;
      PowerLossRegion.armNext(pool, crashOp, crashSeed); // counts the pool's format too
      t = open("pmemsim:" + pool);
      PowerLossRegion region = PowerLossRegion.opened(pool);
      try {
        SplittableRandom churn = new SplittableRandom(crashSeed);
        for (int i = 0; i < MAX_WRITES && region.crashImage() == null; i++) {
          Set<String> before = live(t);
          HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), size(i),
              BlockType.DATA);
          t.cacheBlock(key(i), b, false, true);
          b.release();
          if (i > 10 && churn.nextInt(4) == 0) {
            t.evictBlock(key(i - 1 - churn.nextInt(10)));
          }
          written = i + 1;
          if (region.crashImage() != null) {
            before.retainAll(live(t)); // in the index before and after the cut operation
            expected = before;
          }
        }
      } finally {
        t.shutdown();
      }
      byte[] image = region.crashImage();
      assertNotNull(image, "the crash point was not reached (" + where + ")");
      Path crashed = pools.resolve("crashed-" + round + ".pool");
      Files.write(crashed, image);
      BucketTier after = open("pmem:" + crashed);
      try {
        long restored = after.getBlockCount();
        int served = 0;
        for (int i = 0; i < written; i++) {
          Cacheable got = after.getBlock(key(i), true, false, true);
          if (got == null) {
            assertTrue(!expected.contains(name(key(i))), "block " + i + " was published and "
                + "flushed before the power loss but is gone (" + where + ")");
            continue;
          }
          try {
            TestBlocks.assertBlock(key(i), size(i), BlockType.DATA, got);
          } catch (AssertionError e) {
            throw new AssertionError("wrong bytes for block " + i + " (" + where + ")", e);
          } finally {
            got.release();
          }
          served++;
        }
        after.checkInvariants();
        totalRestored += served;
        totalExpected += expected.size();
        System.out.printf("power loss: %s: %d writes, %d blocks live across the cut, %d "
            + "restored, %d served, %d dropped by CRC%n", where, written, expected.size(),
            restored, served, after.checksumFailures());
      } finally {
        after.shutdown();
      }
    }
    System.out.printf("power loss: %d rounds, %d blocks served of %d required%n", ROUNDS,
        totalRestored, totalExpected);
  }
}
