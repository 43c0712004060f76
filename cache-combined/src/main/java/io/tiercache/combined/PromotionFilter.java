/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;

/**
 * The admission rule for L2 hits in exclusive and inclusive mode: a data block moves up to the
 * L1 once it was hit in the L2 {@code minHits} times recently. One-off reads of cold blocks stay
 * in the L2 instead of displacing the L1's working set, which is what makes the exclusive mode
 * worth its rewrites.
 *
 * <h2>Structure</h2>
 * A count-min sketch: {@code width} saturating counters (0 to 15), a power of two sized for the
 * L2's expected block count, shared by four hash functions; the estimate is the minimum of a
 * key's four counters. After {@code width / 2} recorded hits (four increments each, so two per
 * counter on average) every counter is halved, so the
 * estimate follows a changing workload.
 *
 * <p>cache-lru's {@code FrequencySketch} is the same structure but single-threaded (only the
 * L1's eviction-lock holder touches it, and it is package-private there); L2 hits arrive on every
 * reader thread, hence this lock-free variant.
 *
 * <h2>Concurrency</h2>
 * Counters change by compare-and-set; the halving pass runs on the one thread that claims it and
 * may race with concurrent increments (an increment can be lost or halved early). The rule is a
 * heuristic: a lost count delays one promotion, it never affects which bytes are served.
 */
final class PromotionFilter {
  private static final int MAX_COUNT = 15;
  private static final int DEPTH = 4;
  private static final int[] SEEDS = {0x9E3779B9, 0x85EBCA6B, 0xC2B2AE35, 0x27D4EB2F};

  private volatile int minHits; // changed online by onConfigurationChange
  private volatile int raise; // hot mode's feedback: extra hits while the L1 drops most copies
  private final AtomicIntegerArray counters;
  private final int mask;
  private final long sampleSize;
  private final AtomicLong recorded = new AtomicLong();
  private final AtomicBoolean aging = new AtomicBoolean();

  /**
   * @param minHits hits before a block is promoted (1 promotes every hit)
   * @param expectedBlocks how many blocks the L2 holds, to size the sketch: eight counters per
   *     block, so a key's four counters are rarely all shared (capped at 2^22 counters, 16 MB)
   */
  PromotionFilter(int minHits, long expectedBlocks) {
    this.minHits = minHits;
    int width = (int) Math.min(1 << 22,
        Long.highestOneBit(Math.max(64, 8 * expectedBlocks) - 1) << 1);
    this.counters = new AtomicIntegerArray(width); // minHits may rise online
    this.mask = counters.length() - 1;
    this.sampleSize = counters.length() / 2;
  }

  /** Records an L2 hit on {@code key}; returns whether the block should now move to the L1. */
  boolean recordHit(BlockCacheKey key, boolean metaBlock) {
    int bar = Math.min(MAX_COUNT, minHits + raise);
    if (metaBlock || bar <= 1) {
      return true;
    }
    int h = spread(key.hashCode());
    int estimate = MAX_COUNT;
    for (int i = 0; i < DEPTH; i++) {
      estimate = Math.min(estimate, increment(indexOf(h, i)));
    }
    if (recorded.incrementAndGet() >= sampleSize) {
      age();
    }
    return estimate >= bar;
  }

  /**
   * Hot mode's feedback, once per batch of copies: the last {@code copied} copies into the L1
   * were followed by {@code l1Hits} L1 hits on data blocks, the L1's admission threw
   * {@code rejected} copies away again, and {@code metaDemoted} index or bloom blocks were pushed
   * out of the L1 into the L2. A copy costs a 64 KB heap copy and pays back only through L1 hits,
   * and it must not cost the L1 its index and bloom blocks (HBase's placement keeps the L1 for
   * them): after a batch in which index or bloom blocks were pushed out the bar rises by four;
   * while copies earn less than one hit each, or more than half of them are thrown away, by one;
   * once they earn more than two and fewer than a quarter are thrown away, it falls by one, down
   * to {@code tiercache.combined.promote.min.hits}.
   */
  void feedback(long copied, long l1Hits, long rejected, long metaDemoted) {
    if (copied <= 0) {
      return;
    }
    if (metaDemoted > 0) {
      raise = Math.min(MAX_COUNT - minHits, raise + 4);
    } else if ((l1Hits < copied || 2 * rejected > copied) && minHits + raise < MAX_COUNT) {
      raise++;
    } else if (l1Hits > 2 * copied && 4 * rejected < copied && raise > 0) {
      raise--;
    }
  }

  /** The L2 hits a data block needs now: the setting plus hot mode's feedback. */
  int bar() {
    return Math.min(MAX_COUNT, minHits + raise);
  }

  /** Increments one counter (saturating); returns its new value. */
  private int increment(int index) {
    while (true) {
      int c = counters.get(index);
      if (c >= MAX_COUNT) {
        return MAX_COUNT;
      }
      if (counters.compareAndSet(index, c, c + 1)) {
        return c + 1;
      }
    }
  }

  private void age() {
    if (!aging.compareAndSet(false, true)) {
      return;
    }
    try {
      recorded.set(0);
      for (int i = 0; i < counters.length(); i++) {
        counters.set(i, counters.get(i) >>> 1);
      }
    } finally {
      aging.set(false);
    }
  }

  private int indexOf(int h, int i) {
    int x = (h ^ SEEDS[i]) * SEEDS[(i + 1) & 3];
    x ^= x >>> 15;
    return x & mask;
  }

  private static int spread(int x) {
    x *= 0x31848bab;
    x ^= x >>> 14;
    return x;
  }

  /** Sets the L2 hits a data block needs before it moves up. */
  void setMinHits(int hits) {
    minHits = hits;
  }
}
