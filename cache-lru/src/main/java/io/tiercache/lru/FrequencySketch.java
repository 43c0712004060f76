/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

/**
 * A 4-bit count-min sketch estimating how often each block key was seen recently: the "TinyLFU"
 * in W-TinyLFU (Einziger, Friedman, Manes, ACM TOS 2017). Caffeine has one, but it is not public
 * API, so the L1 carries its own.
 *
 * <h2>Memory layout</h2>
 * {@code table} is an array of longs, each holding sixteen 4-bit counters. A key picks one long
 * per hash function (four of them, depth 4) and, inside each long, one of four counter groups
 * chosen by its hash; so a key touches four counters in up to four longs:
 * <pre>
 *   long = | c15 | c14 | ... | c1 | c0 |      4 bits each
 *   counter for hash function i = (start + i), start = (hash &amp; 3) * 4
 * </pre>
 * The frequency is the minimum of the four counters (saturating at 15).
 *
 * <h2>Aging</h2>
 * After {@code 10 * width} increments (20 to 40 per block the cache holds, see
 * {@link #LONGS_PER_ENTRY}) every counter is halved, so the sketch follows a changing workload: a
 * block that was hot an hour ago does not keep out one that is hot now.
 *
 * <h2>Concurrency</h2>
 * Not thread safe: only the policy thread holding the L1's eviction lock calls it.
 */
final class FrequencySketch {
  private static final long[] SEEDS = {
    0xc3a5c85c97cb3127L, 0xb492b66fbe98f273L, 0x9ae16a3b2f90404fL, 0xcbf29ce484222325L
  };
  private static final long HALF_MASK = 0x7777777777777777L;

  /**
   * Longs of the table per block the cache is expected to hold: 2, where Caffeine has 1. Measured
   * on single-thread zipfian traces (theta 0.99, 64 KB blocks, a 256 MB cache of 4,060 blocks, 3
   * seeds, docs/benchmarks.md "The L1's sketch: twice as wide"): at 3x and 9x the L1 read 87.05
   * and 77.58 % with 1 (Caffeine's {@code TinyLfuBlockCache} 87.55 and 78.13), 87.85 and
   * 78.55 % with 2. The wider table both halves the collisions and doubles the aging period:
   * the longer period alone gained 0.66 pt at both ratios, the wider table alone (the period
   * kept) 0.16 and 0.33.
   */
  static final int LONGS_PER_ENTRY = 2;

  private long[] table = new long[0];
  private int mask;
  private int sampleSize;
  private int additions;

  /**
   * Sizes the sketch for a cache of about {@code expectedEntries} blocks; never shrinks. The
   * table has {@value #LONGS_PER_ENTRY} longs per expected block (rounded up to a power of two,
   * at least 128), so the aging period ({@code 10 * width} additions) is 20 to 40 per block.
   */
  void ensureCapacity(long expectedEntries) {
    long longs = Math.max(64, LONGS_PER_ENTRY * Math.max(1, expectedEntries) - 1);
    int width = (int) Math.min(1 << 30, Long.highestOneBit(longs << 1));
    if (width <= table.length) {
      return;
    }
    table = new long[width];
    mask = width - 1;
    sampleSize = (int) Math.min(Integer.MAX_VALUE, 10L * width);
    additions = 0;
  }

  /** Returns the estimated recent frequency of {@code hash}, 0 to 15. */
  int frequency(int hash) {
    int h = rehash(hash);
    int start = (h & 3) << 2;
    int min = 15;
    for (int i = 0; i < 4; i++) {
      int index = indexOf(h, i);
      int count = (int) ((table[index] >>> ((start + i) << 2)) & 0xfL);
      min = Math.min(min, count);
    }
    return min;
  }

  /** Counts one more occurrence of {@code hash}. */
  void increment(int hash) {
    increment(hash, 1);
  }

  /**
   * Counts {@code n} more occurrences of {@code hash} (a sampled hit stands for several): each of
   * its counters grows by {@code n}, capped at 15, and the aging period counts as many additions
   * as the counter that grew most grew, as {@code n} single increments would (each counts when
   * any of the key's counters grows). Counting {@code n} whatever the cap left aged the sketch
   * early: a meta block read on every get, sampled one hit in 64, added 64 to the period at its
   * first sampled hit after each halving where its counters grew by 8 (the combined cache read
   * 0.07 points fewer hits at {@code hbase-64k-1x}, docs/benchmarks.md).
   */
  void increment(int hash, int n) {
    int h = rehash(hash);
    int start = (h & 3) << 2;
    int grew = 0;
    for (int i = 0; i < 4; i++) {
      grew = Math.max(grew, incrementAt(indexOf(h, i), start + i, n));
    }
    if (grew > 0) {
      additions += grew;
      if (additions >= sampleSize) {
        reset();
      }
    }
  }

  /** Adds up to {@code n} to one counter, capped at 15; returns what it added. */
  private int incrementAt(int index, int counter, int n) {
    int shift = counter << 2;
    int count = (int) ((table[index] >>> shift) & 0xfL);
    int add = Math.min(n, 15 - count);
    if (add > 0) {
      table[index] += (long) add << shift;
      return add;
    }
    return 0;
  }

  private void reset() {
    for (int i = 0; i < table.length; i++) {
      table[i] = (table[i] >>> 1) & HALF_MASK;
    }
    additions >>>= 1;
  }

  private int indexOf(int h, int i) {
    long hash = (h + SEEDS[i]) * SEEDS[i];
    hash += hash >>> 32;
    return ((int) hash) & mask;
  }

  private static int rehash(int x) {
    x *= 0x31848bab;
    x ^= x >>> 14;
    return x;
  }
}
