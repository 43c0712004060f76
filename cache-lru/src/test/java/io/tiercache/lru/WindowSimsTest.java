/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The window's miniature simulations, driven directly: which share they jump to, and when they
 * keep quiet. Seeded single-threaded traces; requests are fed as the policy feeds them (the
 * sketch counts a request before the models see it).
 */
class WindowSimsTest {
  private static final long SEED = 0x5135L;
  private static final long WEIGHT = 64 * 1024;
  /** An L1 of 4,096 blocks: models of 512 blocks, one key in eight sampled. */
  private static final int BLOCKS = 4096;
  private static final double MAX_SHARE = 0.75;
  /** A climber sample of an L1 this size. */
  private static final int SAMPLE = 10 * BLOCKS;

  private final FrequencySketch sketch = new FrequencySketch();
  private final WindowSims sims = new WindowSims(sketch);

  private void sizeFor(int blocks) {
    sketch.ensureCapacity(blocks);
    sims.setCapacity(blocks, MAX_SHARE);
    // HBase's default shares with the window at 1 %: the protected target is the multi share
    // plus the idle in-memory share, less what the window gains over its start.
    sims.setTargets(blocks * WEIGHT,
        share -> (long) (blocks * WEIGHT * Math.max(0, 0.75 - (share - 0.01))));
  }

  private void request(int key) {
    int hash = Integer.hashCode(key) * 0x2545F491;
    sketch.increment(hash);
    sims.access(hash, WEIGHT, 1);
  }

  /** Zipfian ranks (exponent about 1) over {@code keys} keys, by inverting the harmonic sum. */
  private static int zipf(SplittableRandom random, int keys) {
    double x = random.nextDouble() * Math.log(keys + 1.0);
    return (int) Math.min(keys - 1, Math.exp(x) - 1);
  }

  @Test
  void setCapacity_underTwoThousandBlocks_switchesTheModelsOff() {
    sizeFor(2047);
    assertFalse(sims.enabled());
    request(1);
    assertEquals(0, sims.trackedKeys());
    assertTrue(Double.isNaN(sims.jump(0.01)));
    sizeFor(2048);
    assertTrue(sims.enabled());
    assertEquals(8, sims.rate());
    sizeFor(100_000);
    assertEquals(128, sims.rate(), "models of 512 to 1,023 blocks");
  }

  /**
   * Three reads in four zipfian over 9x the cache, one in four from two scanners over a cold
   * range, the second {@code gap} blocks behind the first: a scanned block is read again some
   * 8 x gap requests later. Past the first sample, the models see that a window that holds the
   * blocks between the two reads hits clearly more than a 1 % window, and say jump.
   */
  @Test
  void scannersAFewHundredBlocksApart_jumpToAWindowThatHoldsTheDistance() {
    sizeFor(BLOCKS);
    SplittableRandom random = new SplittableRandom(SEED);
    int gap = 150;
    int[] scanner = {1_000_000 + gap, 1_000_000};
    double to = Double.NaN;
    for (int sample = 0; sample < 3; sample++) {
      for (int i = 0; i < SAMPLE; i++) {
        if (i % 4 == 3) {
          request(scanner[i / 4 & 1]++);
        } else {
          request(zipf(random, 9 * BLOCKS));
        }
      }
      to = sims.jump(0.01);
    }
    double[] rates = sims.lastRates();
    assertTrue(to >= 0.1, "seed " + SEED + ": jumped to " + to + ", rates "
        + java.util.Arrays.toString(rates));
    assertTrue(rates[0] + WindowSims.MARGIN <= rates[indexOf(to)],
        java.util.Arrays.toString(rates));
    assertTrue(sims.trackedKeys() <= sims.models() * BLOCKS / sims.rate(),
        "keys tracked " + sims.trackedKeys());
  }

  /** Zipfian reads alone: every share hits about as often, and the window is left to climb. */
  @Test
  void zipfianReads_neverJump() {
    sizeFor(BLOCKS);
    SplittableRandom random = new SplittableRandom(SEED);
    for (int sample = 0; sample < 5; sample++) {
      for (int i = 0; i < SAMPLE; i++) {
        request(zipf(random, 9 * BLOCKS));
      }
      double to = sims.jump(0.01);
      assertTrue(Double.isNaN(to), "seed " + SEED + ", sample " + sample + ": jumped to " + to
          + ", rates " + java.util.Arrays.toString(sims.lastRates()));
    }
  }

  /** A resize within the same sample rate (HeapMemoryManager's steps) keeps the models' keys. */
  @Test
  void setCapacity_sameRate_keepsTheModels_newRate_startsAfresh() {
    sizeFor(BLOCKS);
    int key = sampledKey();
    request(key);
    assertEquals(1, sims.trackedKeys());
    sims.setCapacity(5_000, MAX_SHARE);
    assertEquals(8, sims.rate());
    assertEquals(1, sims.trackedKeys());
    sims.setCapacity(2 * BLOCKS, MAX_SHARE);
    assertEquals(16, sims.rate());
    assertEquals(0, sims.trackedKeys());
  }

  /** Requests standing for several hits count that many; a new key counts one miss. */
  @Test
  void access_sampledHit_countsItsRequests() {
    sizeFor(BLOCKS);
    int key = sampledKey();
    int hash = Integer.hashCode(key) * 0x2545F491;
    sims.access(hash, WEIGHT, 4);
    sims.access(hash, WEIGHT, 4);
    double[] rates = sims.hitRates();
    for (double r : rates) {
      assertEquals(7.0 / 8, r, 1e-9);
    }
    assertEquals(1, sims.trackedKeys());
  }

  private int sampledKey() {
    for (int key = 0; key < 1_000; key++) {
      int before = sims.trackedKeys();
      int hash = Integer.hashCode(key) * 0x2545F491;
      if (sims.sampled(hash)) {
        return key;
      }
      assertEquals(before, sims.trackedKeys());
    }
    throw new AssertionError("no sampled key under 1,000");
  }

  private static int indexOf(double share) {
    for (int i = 0; i < WindowSims.SHARES.length; i++) {
      if (WindowSims.SHARES[i] == share) {
        return i;
      }
    }
    throw new AssertionError(share);
  }
}
