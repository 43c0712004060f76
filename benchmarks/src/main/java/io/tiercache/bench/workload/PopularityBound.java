/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import java.util.Arrays;
import java.util.function.IntUnaryOperator;

/**
 * The highest hit ratio any cache can expect when every read draws its block independently from
 * a fixed popularity distribution (the independent reference model: the showdown's
 * {@code uniform} and {@code zipf} patterns), unless it knows the order of future reads.
 *
 * <p>Why it bounds every real cache: before each read the chance of a hit is the summed
 * probability of the blocks the cache holds at that moment, and no set of blocks that fits has a
 * larger sum than the most probable blocks per byte ("A0": Aho, Denning and Ullman, 1971). So
 * this bound holds read by read, for a finite run in expectation as well as in the long run,
 * whatever the policy; only a cache that knows the future (Bélády's OPT) can go past it. The
 * distance between this bound and OPT is therefore out of reach for every real cache.
 *
 * <p>The sum is the fractional knapsack: blocks by probability per byte until the capacity is
 * full, the last one counted for the share that fits. With blocks of one size that is the exact
 * value of the best set (plus at most one block's share); with mixed sizes it can only be
 * higher than the best set that really fits, so it stays an upper bound.
 *
 * <p>Concurrency: stateless.
 */
public final class PopularityBound {
  private PopularityBound() {}

  /**
   * The bound for blocks {@code 0..p.length-1} read with probabilities {@code p} (summing to 1)
   * into {@code capacity} bytes.
   *
   * @param sizeOf bytes a block takes in the cache, by index into {@code p}
   */
  public static double hitRatio(double[] p, IntUnaryOperator sizeOf, long capacity) {
    int n = p.length;
    Integer[] order = new Integer[n];
    double[] density = new double[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
      density[i] = p[i] / Math.max(1, sizeOf.applyAsInt(i));
    }
    Arrays.sort(order, (a, b) -> Double.compare(density[b], density[a]));
    double hit = 0;
    long left = capacity;
    for (int i : order) {
      long size = sizeOf.applyAsInt(i);
      if (size <= left) {
        hit += p[i];
        left -= size;
      } else {
        hit += p[i] * left / size;
        break;
      }
    }
    return Math.min(1, hit);
  }

  /**
   * The probability of each rank {@code 0..n-1} under {@code zipfian}: the share of uniform draws
   * in {@code [0, 1)} that {@link Zipfian#rank} maps to it, by a midpoint rule over
   * {@code points} draws (the mapping is monotone, so each rank is one interval of draws and the
   * rule errs by at most {@code 1 / points} per rank boundary).
   */
  public static double[] probabilities(Zipfian zipfian, int points) {
    double[] p = new double[zipfian.size()];
    double step = 1.0 / points;
    for (int i = 0; i < points; i++) {
      p[zipfian.rank((i + 0.5) * step)] += step;
    }
    return p;
  }
}
