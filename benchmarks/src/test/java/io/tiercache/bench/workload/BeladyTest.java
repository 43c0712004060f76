/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BeladyTest {
  private static final double EPS = 1e-12;

  @Test
  void hitRatio_twoBlocksFitting_everyRepeatHits() {
    assertEquals(0.5, Belady.hitRatio(new int[] {0, 1, 0, 1}, 2, id -> 10, 20, 0), EPS);
  }

  @Test
  void hitRatio_oneSlot_bypassesTheBlockUsedLater() {
    // a b a b a, room for one: keep a, never admit b (its next use is farther): a hits twice.
    // Demand paging (always admit) would hit nothing here.
    assertEquals(2.0 / 5, Belady.hitRatio(new int[] {0, 1, 0, 1, 0}, 2, id -> 10, 10, 0), EPS);
  }

  @Test
  void hitRatio_textbookString_threeFrames_beatsDemandPagingOptimum() {
    // Silberschatz's reference string: OPT with 3 frames and no bypass has 9 faults (11 hits).
    // Bypass can only help; exhaustive search below gives the true optimum with bypass.
    int[] trace = {7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1};
    double belady = Belady.hitRatio(trace, 8, id -> 1, 3, 0);
    assertEquals(exhaustiveHits(trace, 3) / 20.0, belady, EPS);
    assertTrue(belady >= 11 / 20.0, "at least demand-paging OPT's 11 hits: " + belady);
  }

  @Test
  void hitRatio_onlyMeasuredPartCounts() {
    // 0 1 | 0 1 0 1: the warm-up fills the cache, the four measured reads all hit.
    assertEquals(1.0, Belady.hitRatio(new int[] {0, 1, 0, 1, 0, 1}, 2, id -> 1, 2, 2), EPS);
    assertEquals(Double.NaN, Belady.hitRatio(new int[] {0, 1}, 2, id -> 1, 2, 2));
  }

  @Test
  void hitRatio_blockLargerThanCapacity_neverCached() {
    // Block 0 (100 bytes) never fits in 50: of the measured reads b a b, only b's hit.
    assertEquals(2.0 / 3, Belady.hitRatio(new int[] {0, 1, 0, 1, 0, 1}, 2,
        id -> id == 0 ? 100 : 10, 50, 3), EPS);
  }

  @Test
  void hitRatio_mixedSizes_evictsFarthestUntilTheBlockFits() {
    // Capacity 10: a(4) b(4) then c(8) whose next use (at 4) comes before a's and b's (5, 6):
    // both go, c is admitted and hits; a and b then miss.
    int[] sizes = {4, 4, 8};
    double r = Belady.hitRatio(new int[] {0, 1, 2, 2, 2, 0, 1}, 3, id -> sizes[id], 10, 0);
    assertEquals(2.0 / 7, r, EPS);
  }

  @Test
  void hitRatio_equalSizes_matchesExhaustiveOptimum() {
    for (long seed = 1; seed <= 300; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int blocks = 2 + random.nextInt(4);
      int capacity = 1 + random.nextInt(3);
      int[] trace = new int[4 + random.nextInt(10)];
      for (int i = 0; i < trace.length; i++) {
        trace[i] = random.nextInt(blocks);
      }
      double expected = (double) exhaustiveHits(trace, capacity) / trace.length;
      assertEquals(expected, Belady.hitRatio(trace, blocks, id -> 1, capacity, 0), EPS,
          "seed " + seed + ", capacity " + capacity + ", trace " + Arrays.toString(trace));
    }
  }

  @Test
  void trace_isTheRunnersSplitInterleavedRoundRobin() {
    int[][] t = Belady.traceOf(new int[][] {{10, 11, 12, 13, 14}, {20, 21, 22, 23}}, 3);
    // Warm-up 3 ops: thread 0 takes 2, thread 1 takes 1; then 6 measured: 3 and 3.
    assertEquals("[10, 20, 11, 12, 21, 13, 22, 14, 23]", Arrays.toString(t[0]));
    assertEquals(3, t[1][0]);
  }

  /** The most hits any policy (may bypass, may evict anything) gets with unit-size blocks. */
  private static int exhaustiveHits(int[] trace, int capacity) {
    return best(trace, capacity, 0, 0, new HashMap<>());
  }

  private static int best(int[] trace, int capacity, int i, int resident, Map<Long, Integer> memo) {
    if (i == trace.length) {
      return 0;
    }
    long key = ((long) i << 32) | resident;
    Integer known = memo.get(key);
    if (known != null) {
      return known;
    }
    int bit = 1 << trace[i];
    int result;
    if ((resident & bit) != 0) {
      result = 1 + best(trace, capacity, i + 1, resident, memo);
    } else {
      result = best(trace, capacity, i + 1, resident, memo); // bypass
      if (Integer.bitCount(resident) < capacity) {
        result = Math.max(result, best(trace, capacity, i + 1, resident | bit, memo));
      } else {
        for (int v = resident; v != 0; v &= v - 1) {
          int victim = v & -v;
          result = Math.max(result, best(trace, capacity, i + 1, (resident & ~victim) | bit, memo));
        }
      }
    }
    memo.put(key, result);
    return result;
  }
}
