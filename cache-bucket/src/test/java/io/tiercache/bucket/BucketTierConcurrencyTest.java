/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Readers and inserters racing on a small L2 with mixed block sizes (so slabs keep moving between
 * size classes, blocks are evicted while pinned, and full queues make readers write): every hit
 * has the right bytes, and the file engine, which checks every read's CRC32C, never finds a
 * damaged block (a failure there means a slot was overwritten under a reader). Both admission
 * modes: with {@code tinylfu} every lookup and insert also races on the frequency sketch and the
 * victim look-ahead.
 */
class BucketTierConcurrencyTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 777L);
  private static final int[] SIZES = {3000, 8000, 30_000, 62_000, 120_000};

  @TempDir
  Path dir;

  @ParameterizedTest
  @CsvSource({"offheap,tinylfu", "file,tinylfu", "mmap,tinylfu", "offheap,all", "file,all",
      "mmap,all"})
  void racingReadersAndWriters_neverSeeDamagedBytes(String kind, String admission)
      throws Exception {
    String engine = kind.equals("offheap") ? "offheap" : kind + ":" + dir.resolve("c");
    BucketTier t = BucketTier.builder().ioEngine(engine).capacity(6L << 20).slabSize(1 << 20)
        .writers(2, 2).admission(admission).build();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        long seed = SEED * 31 + w;
        work.add(pool.submit(() -> {
          SplittableRandom rnd = new SplittableRandom(seed);
          for (int op = 0; op < 2_500; op++) {
            String file = "f" + rnd.nextInt(8);
            long offset = rnd.nextInt(60) * 1_000_000L;
            int size = SIZES[(int) ((offset / 1_000_000L + file.hashCode()) & 0xffff)
                % SIZES.length];
            BlockCacheKey key = TestBlocks.key(file, offset, BlockType.DATA);
            int dice = rnd.nextInt(100);
            if (dice < 50) {
              Cacheable got = t.getBlock(key, true, false, true);
              if (got != null) {
                try {
                  TestBlocks.assertBlock(key, size, BlockType.DATA, got);
                } catch (AssertionError e) {
                  throw new AssertionError(
                      kind + "/" + admission + " seed " + SEED + ": " + e.getMessage(), e);
                } finally {
                  got.release();
                }
              }
            } else if (dice < 97) {
              t.cacheBlock(key, TestBlocks.heap(file, offset, size, BlockType.DATA), false,
                  dice < 55);
            } else {
              t.evictBlocksByHfileName(file);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : work) {
        f.get();
      }
      t.flush(30_000);
      assertEquals(0, t.checksumFailures(),
          kind + "/" + admission + " seed " + SEED + ": damaged blocks read");
      t.checkInvariants();
    } finally {
      pool.shutdownNow();
      t.shutdown();
    }
  }
}
