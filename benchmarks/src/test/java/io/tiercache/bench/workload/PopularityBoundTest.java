/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PopularityBoundTest {
  private static final double EPS = 1e-9;

  @Test
  void hitRatio_uniform_isTheShareOfBlocksThatFit() {
    double[] p = new double[100];
    java.util.Arrays.fill(p, 0.01);
    assertEquals(0.25, PopularityBound.hitRatio(p, i -> 10, 250), EPS);
    // A capacity between two blocks counts the share of the next block that fits.
    assertEquals(0.255, PopularityBound.hitRatio(p, i -> 10, 255), EPS);
    assertEquals(1.0, PopularityBound.hitRatio(p, i -> 10, 5000), EPS);
  }

  @Test
  void hitRatio_mixedSizes_takesTheMostProbablePerByteFirst() {
    // Block 0: p 0.4 over 100 bytes; blocks 1, 2: p 0.3 over 50 bytes each. 100 bytes hold 1 + 2.
    assertEquals(0.6, PopularityBound.hitRatio(new double[] {0.4, 0.3, 0.3},
        i -> i == 0 ? 100 : 50, 100), EPS);
  }

  @Test
  void probabilities_zipfian_sumToOneAndFallWithRank() {
    Zipfian zipfian = new Zipfian(1000, Zipfian.THETA);
    double[] p = PopularityBound.probabilities(zipfian, 1 << 20);
    double sum = 0;
    for (double v : p) {
      sum += v;
    }
    assertEquals(1.0, sum, 1e-9);
    assertTrue(p[0] > p[1] && p[1] > p[10] && p[10] > p[999], "falls with rank");
    // Rank 0 takes the draws below 1 / zeta(n): theta 0.99 over 1000 ranks gives about 0.132.
    assertEquals(0.132, p[0], 0.005);
  }

  @Test
  void hitRatio_boundsAnLruOnIndependentZipfianReads() {
    // An LRU of 50 blocks over 1,000 zipfian blocks, 200,000 seeded reads: its hit ratio stays
    // under the bound, and the bound is what a cache holding the 50 most popular blocks gets.
    long seed = 20261126L;
    int n = 1000;
    int slots = 50;
    Zipfian zipfian = new Zipfian(n, Zipfian.THETA);
    double bound = PopularityBound.hitRatio(PopularityBound.probabilities(zipfian, 1 << 20),
        i -> 1, slots);
    SplittableRandom random = new SplittableRandom(seed);
    java.util.LinkedHashMap<Integer, Boolean> lru = new java.util.LinkedHashMap<>(64, 0.75f, true);
    long lruHits = 0;
    long topHits = 0;
    int reads = 200_000;
    for (int i = 0; i < reads; i++) {
      int rank = zipfian.rank(random.nextDouble());
      topHits += rank < slots ? 1 : 0;
      if (lru.get(rank) != null) {
        lruHits++;
      } else {
        lru.put(rank, Boolean.TRUE);
        if (lru.size() > slots) {
          lru.remove(lru.keySet().iterator().next());
        }
      }
    }
    assertTrue((double) lruHits / reads < bound, "seed " + seed + ": LRU " + lruHits + " of "
        + reads + " over the bound " + bound);
    assertEquals(bound, (double) topHits / reads, 0.005, "seed " + seed);
  }
}
