/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.contract.TestBlocks;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;

/**
 * The child JVM of {@link PmemCrashTest}: caches and evicts blocks on a pmem L2 without end,
 * printing {@code P i live} after each publication, until the parent kills it with SIGKILL.
 *
 * <p>Usage: {@code CrashWriter POOL BACKEND SEED}.
 */
public final class CrashWriter {
  static final int MB = 1 << 20;
  static final int[] SIZES = {5 * 1024, 33 * 1024, 65 * 1024};

  private CrashWriter() {}

  /** Opens the pool and waits for its background restore, so the caller sees all of it. */
  static BucketTier open(String pool, String backend) {
    BucketTier t = BucketTier.builder().ioEngine("pmem:" + pool).pmemBackend(backend)
        .capacity(4L * MB).slabSize(MB).bucketSizes(SIZES).writers(1, 8).build();
    if (!t.waitForCacheInitialization(60_000)) {
      throw new AssertionError("the restore of " + pool + " did not finish in 60 s");
    }
    return t;
  }

  static BlockCacheKey key(int i) {
    return TestBlocks.key("crash-" + (i % 5), i * 70_000L, BlockType.DATA);
  }

  /** Payload size of block i: two size classes, so slabs move between classes too. */
  static int size(int i) {
    return i % 3 == 0 ? 20_000 : 3_000;
  }

  public static void main(String[] args) {
    BucketTier t = open(args[0], args[1]);
    SplittableRandom rnd = new SplittableRandom(Long.parseLong(args[2]));
    for (int i = 0; i < 10_000_000; i++) {
      HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), size(i),
          BlockType.DATA);
      t.cacheBlock(key(i), b, false, true);
      b.release();
      if (i > 10 && rnd.nextInt(4) == 0) {
        t.evictBlock(key(i - 1 - rnd.nextInt(10)));
      }
      System.out.println("P " + i + " " + t.getBlockCount());
      System.out.flush();
    }
  }
}
