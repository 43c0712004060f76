/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the pmem pool restore ({@link PoolLayout} header check, {@link PoolIndex} slab map, name
 * table and records): a pool of a warm L2 is damaged — bit flips in the header, the slab map, the
 * name table, the sealed records or the blocks, random runs over the metadata, a file of another
 * length — or opened with other bucket sizes. Every case must construct the tier without an
 * exception (a damaged header or length means a re-format with a warning) and serve only blocks
 * with exactly their key's bytes. dax back end (no native code). Seed:
 * {@code -Dtiercache.test.seed=N}; cases: {@code -Dtiercache.fuzz.cases=N} (default 32).
 */
class PoolFuzzTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261124L);
  private static final int CASES = Integer.getInteger("tiercache.fuzz.cases", 32);
  private static final int MB = 1 << 20;
  private static final int[] SIZES = {5 * 1024, 33 * 1024, 65 * 1024};
  private static final int BLOCKS = 40;

  private final PoolDir pools = new PoolDir();
  private final Path pool = pools.resolve("fuzz.pool");

  @AfterEach
  void removePools() {
    pools.close();
  }

  private BucketTier open(int... sizes) {
    BucketTier t = BucketTier.builder().ioEngine("pmem:" + pool).pmemBackend("dax")
        .capacity(4L * MB).slabSize(MB).bucketSizes(sizes).writers(1, 8).build();
    if (!t.waitForCacheInitialization(60_000)) {
      throw new AssertionError("the background restore did not finish in 60 s");
    }
    return t;
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("pool-fuzz-" + (i % 3), i * 100_000L, BlockType.DATA);
  }

  private static int size(int i) {
    return i % 2 == 0 ? 20_000 : 3_000;
  }

  @Test
  void damagedPool_reformatsOrServesGoodBlocks_neverAnExceptionOrAWrongByte() throws Exception {
    BucketTier warm = open(SIZES);
    for (int i = 0; i < BLOCKS; i++) {
      HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), size(i),
          BlockType.DATA);
      warm.cacheBlock(key(i), b, false, true);
      b.release();
    }
    warm.shutdown();
    byte[] good = Files.readAllBytes(pool);
    PoolLayout layout = new PoolLayout(4L * MB, MB, SIZES);
    SplittableRandom rnd = new SplittableRandom(SEED);
    Map<String, int[]> outcomes = new HashMap<>();
    for (int c = 0; c < CASES; c++) {
      long caseSeed = rnd.nextLong();
      SplittableRandom r = new SplittableRandom(caseSeed);
      byte[] bytes = good.clone();
      int[] sizes = SIZES;
      String what;
      switch (c % 8) {
        case 0:
          what = "header";
          if (r.nextBoolean()) {
            flip(bytes, 0, PoolLayout.H_DATA_BASE + 8, 1 + r.nextInt(4), r);
          } else {
            flip(bytes, PoolLayout.H_SLOT_SIZES, PoolLayout.H_SLOT_SIZES + 4 * SIZES.length,
                1 + r.nextInt(4), r);
          }
          break;
        case 1:
          what = "slab map";
          flip(bytes, layout.slabMapBase, layout.slabMapEntry(layout.slabCount),
              1 + r.nextInt(4), r);
          break;
        case 2:
          what = "name table";
          flipNonZero(bytes, layout.namesBase, layout.recordsBase, 1 + r.nextInt(4), r);
          break;
        case 3:
          what = "records";
          flipNonZero(bytes, layout.recordsBase, layout.dataBase, 1 + r.nextInt(16), r);
          break;
        case 4:
          what = "blocks";
          flipNonZero(bytes, layout.dataBase, bytes.length, 1 + r.nextInt(32), r);
          break;
        case 5:
          what = "metadata run";
          int from = liveByte(bytes, layout.slabMapBase, layout.dataBase - 256, r);
          for (int i = from; i < from + 1 + r.nextInt(256); i++) {
            bytes[i] = (byte) r.nextInt(256);
          }
          break;
        case 6:
          what = "length";
          bytes = Arrays.copyOf(bytes, r.nextBoolean() ? 8 + r.nextInt(bytes.length - 8)
              : bytes.length + 1 + r.nextInt(MB));
          break;
        default:
          what = "other bucket sizes";
          sizes = new int[] {9 * 1024, 33 * 1024, 65 * 1024};
          break;
      }
      Files.write(pool, bytes);
      String where = "case " + c + " (" + what + "), case seed " + caseSeed + ", seed " + SEED;
      BucketTier t;
      try {
        t = open(sizes);
      } catch (RuntimeException e) {
        throw new AssertionError("constructor threw (" + where + ")", e);
      }
      try {
        long restored = t.getBlockCount();
        int served = 0;
        for (int i = 0; i < BLOCKS; i++) {
          Cacheable got = t.getBlock(key(i), true, false, true);
          if (got != null) {
            try {
              TestBlocks.assertBlock(key(i), size(i), BlockType.DATA, got);
            } catch (AssertionError e) {
              throw new AssertionError("wrong bytes for block " + i + " (" + where + ")", e);
            } finally {
              got.release();
            }
            served++;
          }
        }
        t.checkInvariants();
        assertTrue(served <= restored, where);
        if (c % 8 == 6 || c % 8 == 7) {
          assertEquals(0, restored, "re-formatted (" + where + ")");
        }
        int[] o = outcomes.computeIfAbsent(what, k -> new int[3]);
        o[restored == 0 ? 0 : served == BLOCKS ? 2 : 1]++;
      } finally {
        t.shutdown();
      }
    }
    StringBuilder sb = new StringBuilder("pool fuzz (seed " + SEED + ", " + CASES
        + " cases; cold / partial / all " + BLOCKS + " served):");
    outcomes.forEach((k, v) -> sb.append(' ').append(k).append(' ').append(v[0]).append('/')
        .append(v[1]).append('/').append(v[2]).append(';'));
    System.out.println(sb);
  }

  private static void flip(byte[] b, long from, long to, int flips, SplittableRandom r) {
    for (int i = 0; i < flips; i++) {
      int at = (int) (from + r.nextLong(to - from));
      b[at] ^= (byte) (1 << r.nextInt(8));
    }
  }

  /** A random offset of a non-zero byte in {@code [from, to)}, or {@code from} if none. */
  private static int liveByte(byte[] b, long from, long to, SplittableRandom r) {
    int[] live = new int[(int) (to - from)];
    int n = 0;
    for (int i = (int) from; i < to; i++) {
      if (b[i] != 0) {
        live[n++] = i;
      }
    }
    return n == 0 ? (int) from : live[r.nextInt(n)];
  }

  /** Flips bits in bytes that are not zero (the live part of a mostly empty region). */
  private static void flipNonZero(byte[] b, long from, long to, int flips, SplittableRandom r) {
    int[] live = new int[(int) (to - from)];
    int n = 0;
    for (int i = (int) from; i < to; i++) {
      if (b[i] != 0) {
        live[n++] = i;
      }
    }
    if (n == 0) {
      flip(b, from, to, flips, r);
      return;
    }
    for (int i = 0; i < flips; i++) {
      b[live[r.nextInt(n)]] ^= (byte) (1 << r.nextInt(8));
    }
  }
}
