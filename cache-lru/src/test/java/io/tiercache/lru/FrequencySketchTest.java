/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FrequencySketchTest {
  @Test
  void increment_countsUpToFifteenAndSaturates() {
    FrequencySketch s = new FrequencySketch();
    s.ensureCapacity(1024);
    for (int i = 1; i <= 20; i++) {
      s.increment(42);
      assertEquals(Math.min(i, 15), s.frequency(42));
    }
  }

  @Test
  void weightedIncrement_addsThatManyAndSaturates() {
    FrequencySketch s = new FrequencySketch();
    s.ensureCapacity(1024);
    s.increment(42, 8);
    assertEquals(8, s.frequency(42));
    s.increment(42, 8);
    assertEquals(15, s.frequency(42));
    s.increment(7, 1);
    assertEquals(1, s.frequency(7));
  }

  @Test
  void weightedIncrement_countsTowardTheAgingPeriod() {
    FrequencySketch s = new FrequencySketch();
    s.ensureCapacity(64); // width 128 -> halves after 1280 additions
    s.increment(1, 8);
    assertEquals(8, s.frequency(1));
    SplittableRandom rnd = new SplittableRandom(13);
    // 200 weighted increments of other keys: up to 1,608 additions, past the period once
    for (int i = 0; i < 200; i++) {
      s.increment(rnd.nextInt() | 2, 8);
    }
    assertTrue(s.frequency(1) <= 7, "halved once the weighted additions reach the period");
  }

  @Test
  void weightedIncrement_countsOnlyWhatTheCapLetsItAdd() {
    FrequencySketch s = new FrequencySketch();
    s.ensureCapacity(64); // width 128 -> halves after 1280 additions
    s.increment(1, 15);
    SplittableRandom rnd = new SplittableRandom(17);
    // 30 other keys, 64 each: their counters stop at 15, so at most 450 additions, not 1,920
    for (int i = 0; i < 30; i++) {
      s.increment(rnd.nextInt() | 2, 64);
    }
    assertEquals(15, s.frequency(1), "not halved: the period counted what the counters grew");
  }

  @Test
  void manyKeys_estimatesNeverUnderCount() {
    FrequencySketch s = new FrequencySketch();
    s.ensureCapacity(4096);
    SplittableRandom rnd = new SplittableRandom(7);
    int[] keys = new int[500];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = rnd.nextInt();
      for (int j = 0; j <= i % 10; j++) {
        s.increment(keys[i]);
      }
    }
    for (int i = 0; i < keys.length; i++) {
      assertTrue(s.frequency(keys[i]) >= i % 10 + 1, "count-min never under-counts");
    }
  }

  /**
   * Two longs per expected block: a sketch for 4,096 blocks that has seen 12,288 keys once each
   * (a 3x working set) estimates 1 for nearly all of them. With one long per block (Caffeine's
   * sizing, this sketch before) about 8 % read 2 or more, each of them a block that looks
   * hotter than it is in the admission duel; with two, under 1 %.
   */
  @Test
  void sizedAtTwoLongsPerBlock_onceSeenKeysRarelyLookHotter() {
    long seed = 20261129L;
    FrequencySketch s = new FrequencySketch();
    s.ensureCapacity(4096);
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] keys = new int[3 * 4096];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = rnd.nextInt();
      s.increment(keys[i]);
    }
    int over = 0;
    for (int k : keys) {
      over += s.frequency(k) > 1 ? 1 : 0;
    }
    assertTrue(over < keys.length * 3 / 100, "seed " + seed + ": " + over + " of " + keys.length
        + " keys seen once read 2 or more");
  }

  @Test
  void sampleSizeReached_halvesCounters() {
    FrequencySketch s = new FrequencySketch();
    s.ensureCapacity(64); // width 128 (next power of two above 2x64) -> reset after 1280
    for (int i = 0; i < 8; i++) {
      s.increment(1);
    }
    assertEquals(8, s.frequency(1));
    SplittableRandom rnd = new SplittableRandom(11);
    for (int i = 0; i < 1400; i++) {
      s.increment(rnd.nextInt());
    }
    assertTrue(s.frequency(1) <= 5, "aged count " + s.frequency(1));
  }
}
