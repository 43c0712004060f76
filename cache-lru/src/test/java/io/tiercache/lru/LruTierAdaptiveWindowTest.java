/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;

/**
 * The adaptive window: hill climbing grows it where recency pays and shrinks it where frequency
 * does. Single-threaded, seeded traces, so every run takes the same steps.
 */
class LruTierAdaptiveWindowTest {
  private static final int BLOCK = 4 * 1024;
  /** About 900 blocks of 4 KB with their overhead: a climber sample is 10,240 requests. */
  private static final long CAPACITY = 4L * 1024 * 1024;
  /**
   * The one block cached under every key: the policy sees only keys and weights, and a shared
   * heap block (not reference counted) keeps a 400,000-read trace fast.
   */
  private static final HFileBlock SHARED =
      TestBlocks.heap("w", 0, BLOCK, BlockType.DATA);
  private static final long SEED = 0x11_3L;

  private static final int READS = 400_000;

  /**
   * The window share averaged every 1,000 reads over the second half of a trace: where the
   * climber settled, not where its last step happened to land.
   */
  private static final class WindowMean {
    private final LruTier tier;
    private double sum;
    private int samples;

    WindowMean(LruTier tier) {
      this.tier = tier;
    }

    void sample(int read) {
      if (read >= READS / 2 && read % 1_000 == 0) {
        sum += tier.windowShare();
        samples++;
      }
    }

    double value() {
      return sum / samples;
    }
  }

  private static LruTier tier(double window) {
    return LruTier.builder().maxSize(CAPACITY).blockSizeHint(BLOCK).windowShare(window).build();
  }

  static BlockCacheKey key(long id) {
    return TestBlocks.key("w" + (id & 7), id * BLOCK, BlockType.DATA);
  }

  /** A read as an HFile reader does it, of a 4 KB block; returns whether it hit. */
  static boolean read(LruTier t, long id) {
    BlockCacheKey key = key(id);
    Cacheable got = t.getBlock(key, true, false, true);
    if (got != null) {
      got.release();
      return true;
    }
    t.cacheBlock(key, SHARED, false);
    return false;
  }

  /**
   * Recency-biased: every fourth read is a new block, the others re-read one of the 600 newest
   * (two thirds of the cache), each recent block about equally likely. A block is hot for a while
   * after its first read and then never read again: a plain LRU of the cache's size would hit
   * on nearly every re-read, while blocks that piled up frequency earlier keep their places in a small-window
   * W-TinyLFU.
   */
  @Test
  void recencyBiasedTrace_growsTheWindow() {
    LruTier t = tier(0.01);
    SplittableRandom random = new SplittableRandom(SEED);
    long next = 0;
    int recent = 600;
    WindowMean mean = new WindowMean(t);
    for (int i = 0; i < READS; i++) {
      if (next < recent || random.nextInt(4) == 0) {
        read(t, next++);
      } else {
        read(t, next - 1 - random.nextInt(recent));
      }
      mean.sample(i);
    }
    assertTrue(mean.value() > 0.4, "seed " + SEED + ": mean window share " + mean.value()
        + " over the second half, expected it to grow from 0.01 past 0.4");
    t.checkInvariants();
    t.shutdown();
  }

  /**
   * Frequency-biased: zipfian reads (exponent 1.0) over 5x more blocks than the cache holds,
   * with a fixed popularity. The blocks worth keeping are the frequent ones: the climber gives
   * the window back to the frequency-filtered segments.
   */
  @Test
  void frequencyBiasedTrace_shrinksTheWindow() {
    LruTier t = tier(0.2);
    SplittableRandom random = new SplittableRandom(SEED);
    int keys = 5 * 1024;
    double[] cumulative = new double[keys];
    double sum = 0;
    for (int k = 0; k < keys; k++) {
      sum += 1.0 / (k + 1);
      cumulative[k] = sum;
    }
    WindowMean mean = new WindowMean(t);
    for (int i = 0; i < READS; i++) {
      int k = Arrays.binarySearch(cumulative, random.nextDouble() * sum);
      read(t, k >= 0 ? k : -k - 1);
      mean.sample(i);
    }
    assertTrue(mean.value() < 0.1, "seed " + SEED + ": mean window share " + mean.value()
        + " over the second half, expected it to shrink from 0.2 below 0.1");
    t.checkInvariants();
    t.shutdown();
  }

  /**
   * Three reads in four zipfian over 9x the cache, one in four from two scanners over a cold
   * range, the second 150 blocks behind the first: a scanned block is read again about 1,200
   * reads (some 500 inserts) later, a sixth of the cache. Growing the window towards that size
   * first costs zipfian hits, so the climber alone turns back near its 1 % start and the
   * trailing scanner misses every block; the window's miniature simulations (an L1 of 3,072
   * blocks by its size hint runs them) see the share that holds the distance and jump there.
   */
  @Test
  void scannersAFixedDistanceApart_windowJumpsPastTheirDistance() {
    LruTier t = LruTier.builder().maxSize(12L * 1024 * 1024).blockSizeHint(BLOCK)
        .windowShare(0.01).build();
    SplittableRandom random = new SplittableRandom(SEED);
    int keys = 9 * 3 * 1024;
    double[] cumulative = new double[keys];
    double sum = 0;
    for (int k = 0; k < keys; k++) {
      sum += 1.0 / (k + 1);
      cumulative[k] = sum;
    }
    long[] scanner = {10_000_000 + 150, 10_000_000};
    WindowMean mean = new WindowMean(t);
    int trailing = 0;
    int trailingHits = 0;
    for (int i = 0; i < READS; i++) {
      if (i % 4 == 3) {
        int s = (i / 4) & 1;
        boolean hit = read(t, scanner[s]++);
        if (s == 1 && i >= READS / 2) {
          trailing++;
          trailingHits += hit ? 1 : 0;
        }
      } else {
        int k = Arrays.binarySearch(cumulative, random.nextDouble() * sum);
        read(t, k >= 0 ? k : -k - 1);
      }
      mean.sample(i);
    }
    double trailingHitRate = (double) trailingHits / trailing;
    assertTrue(trailingHitRate > 0.8 && mean.value() > 0.15, "seed " + SEED
        + ": the trailing scanner hit " + trailingHitRate + " of its reads over the second half,"
        + " mean window share " + mean.value() + "; expected over 0.8 and 0.15");
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void reconfigure_restartsTheWindowAtItsConfiguredShare() {
    LruTier t = tier(0.01);
    assertEquals(0.01, t.windowShare(), 1e-9);
    Configuration conf = new Configuration(false);
    conf.set("tiercache.lru.window.percentage", "0.05");
    conf.set("hbase.blockcache.minblocksize", Integer.toString(BLOCK));
    t.onConfigurationChange(conf);
    assertEquals(0.05, t.windowShare(), 1e-9);
    t.shutdown();
  }
}
