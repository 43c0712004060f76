/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs every call against the L2 and against an on-heap reference map and compares. With room
 * for everything the two must agree exactly; under pressure the L2 may miss, never differ.
 */
class BucketTierDifferentialTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 4242L);

  @TempDir
  Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"offheap/ample", "offheap/pressure", "file/ample", "file/pressure",
      "mmap/pressure"})
  void randomOps_agreeWithReference(String mode) {
    String[] parts = mode.split("/");
    String engine = parts[0].equals("offheap") ? "offheap" : parts[0] + ":" + dir.resolve("d");
    boolean ample = parts[1].equals("ample");
    BucketTier t = BucketTier.builder().ioEngine(engine).capacity((ample ? 64L : 4L) << 20)
        .slabSize(1 << 20).writers(2, 4).build();
    Map<BlockCacheKey, int[]> ref = new HashMap<>();
    SplittableRandom rnd = new SplittableRandom(SEED);
    int[] sizes = {3000, 8000, 30_000, 62_000, 120_000};
    for (int op = 0; op < 4000; op++) {
      String file = "d" + rnd.nextInt(6);
      long offset = rnd.nextInt(40) * 1_000_000L;
      BlockType type = offset % 3 == 0 ? BlockType.LEAF_INDEX : BlockType.DATA;
      BlockCacheKey key = TestBlocks.key(file, offset, type);
      int size = sizes[(int) ((offset / 1_000_000L + file.hashCode()) & 0xffff) % sizes.length];
      String ctx = "seed " + SEED + " op " + op + " " + mode;
      int dice = rnd.nextInt(100);
      if (dice < 45) {
        Cacheable got = t.getBlock(key, true, false, true);
        if (ample) {
          assertEquals(ref.containsKey(key), got != null, ctx + " presence of " + key);
        }
        if (got != null) {
          assertTrue(ref.containsKey(key), ctx + " returned a block never cached: " + key);
          TestBlocks.assertBlock(key, size, type, got);
          got.release();
        }
      } else if (dice < 85) {
        HFileBlock b = TestBlocks.heap(file, offset, size, type);
        t.cacheBlock(key, b, false, rnd.nextBoolean());
        b.release();
        ref.put(key, new int[] {size});
      } else if (dice < 97) {
        boolean removed = t.evictBlock(key);
        if (ample) {
          assertEquals(ref.containsKey(key), removed, ctx + " evict " + key);
        }
        ref.remove(key);
      } else {
        int n = t.evictBlocksByHfileName(file);
        long expected = ref.keySet().stream().filter(k -> k.getHfileName().equals(file)).count();
        if (ample) {
          assertEquals(expected, n, ctx + " evict file " + file);
        }
        ref.keySet().removeIf(k -> k.getHfileName().equals(file));
      }
    }
    assertTrue(t.flush(30_000));
    if (ample) {
      assertEquals(ref.size(), t.getBlockCount(), "seed " + SEED);
    }
    t.checkInvariants();
    t.shutdown();
  }
}
