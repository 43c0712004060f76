/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recency side of the L2's admission: the share of the door's <em>losers</em> (data blocks
 * whose sketch estimate does not beat their CLOCK victim's) admitted anyway, adapted to the
 * workload. It plays the part of W-TinyLFU's adaptive window, which lets every new entry in
 * and grows when recency pays (Caffeine's hill climbing), without a second region: an L2 slot
 * cannot be moved between regions without a copy.
 *
 * <h2>Why</h2>
 * The door is right when a block read once is unlikely to be read again before it would leave,
 * wrong when blocks come back soon after their first read. The showdown's scan mix has both:
 * two threads scan the same cold blocks an eighth of a pass apart, so at 3:1 a block the second
 * thread reads is read again by the first while an admitted block would still be cached
 * (admitting everything gave 4 pt more hit ratio there), and at 9:1 it is not (the door gave
 * 4 pt more).
 *
 * <h2>Algorithm: regret of the two choices, measured</h2>
 * Time is the admission clock: blocks written into the L2, which is about how fast CLOCK's hand
 * turns. The horizon is the blocks the L2 holds: roughly how long a block admitted now would
 * stay if it is not read. Two ghost tables ({@link Ghosts}) remember, for a sample of keys:
 * <ul>
 *   <li>losers that were rejected; a later miss of such a key within the horizon is a
 *       <em>rejection regret</em> (admitted, it would probably have been a hit);</li>
 *   <li>victims CLOCK evicted to make room; a later miss within the horizon is an
 *       <em>eviction regret</em> (kept, it would probably have been a hit).</li>
 * </ul>
 * Admitting a loser trades one eviction for one rejection avoided. Every {@code period}
 * decisions (a quarter of the horizon, at least 256) the two regret rates (regrets per
 * rejection, regrets per eviction; counts halved each period, so the last few periods weigh)
 * are compared: the share steps up by {@value #STEP} if the rejection rate is more than
 * {@value #UP_MARGIN} times the eviction rate, down by as much if it is lower than the eviction
 * rate, and holds between the two, within {@code [0, }{@value #MAX}{@code ]}. At most seven
 * eighths of the losers are admitted, so the rejection regret stays measured; at 0 this is the
 * plain door, where it starts.
 *
 * <p>A rejected loser's regret is an upper bound (admitted, it might have left before its next
 * read, as the clock runs faster when more is admitted), and a kept victim may have been read
 * more than once: hence the margin up. Each period's rates go to the tier's log at DEBUG.
 *
 * <h2>Memory</h2>
 * Two tables of up to {@value #MAX_ENTRIES} longs (at most 1 MB of heap together). An L2 of more
 * blocks than the tables hold tracks a sample of the keys (one in 2, 4, ... by hash bits), which
 * leaves both rates unbiased.
 *
 * <h2>Concurrency</h2>
 * Lock free except the period's end, which one thread runs under a {@code tryLock}; the share is
 * a volatile read once per decision.
 */
final class Bypass {
  private static final Logger LOG = LoggerFactory.getLogger(Bypass.class);
  /** Change of the share per period. */
  static final double STEP = 0.125;
  /** Highest share: at least an eighth of the losers stay rejected, measured. */
  static final double MAX = 0.875;
  /**
   * How many times the eviction regret rate the rejection regret rate must be for a step up
   * (between the two the share holds). A rejection's regret is an upper bound (an admitted loser
   * may have left before its next read), and a kept victim may be read more than once. Measured
   * on the showdown (L2 alone, 256 MB): with a plain comparison the share swung between 0 and
   * the top on the zipf cells and cost 0.4–1.2 pt of hit ratio there; with 1.5 it still rose to
   * 3/8 for a while after the L2 filled on {@code zipf-64k-3x} (rates 0.69 and 0.45, a sketch
   * that has not learnt yet); the scan cell that needs the share has rates of 0.6–0.75 and
   * 0.25–0.27.
   */
  static final double UP_MARGIN = 2.0;
  /** Entries per ghost table at most. */
  static final int MAX_ENTRIES = 1 << 16;
  /** Fewer rejections or evictions than this in the weighted counts: no step. */
  static final double MIN_EVENTS = 32;

  private final Ghosts rejected;
  private final Ghosts evicted;
  private final int sampleMask;
  private final long horizon;
  private final long period;
  private final AtomicLong clock = new AtomicLong();
  private final AtomicLong decisions = new AtomicLong();
  private final LongAdder rejections = new LongAdder();
  private final LongAdder rejectionRegrets = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder evictionRegrets = new LongAdder();
  private final ReentrantLock adjusting = new ReentrantLock();
  // Weighted counts of the last periods; guarded by adjusting.
  private double wRejections;
  private double wRejectionRegrets;
  private double wEvictions;
  private double wEvictionRegrets;
  private volatile double share;
  private volatile long steps;

  /** For an L2 of about {@code blocks} blocks. */
  Bypass(long blocks) {
    this(blocks, Math.max(256, Math.max(64, blocks) / 4));
  }

  /** With a period of {@code period} decisions (tests: {@code Long.MAX_VALUE}, by hand). */
  Bypass(long blocks, long period) {
    this.horizon = Math.max(64, blocks);
    long wanted = Math.max(1024, 4 * horizon);
    int entries = (int) Math.min(MAX_ENTRIES, Long.highestOneBit(wanted - 1) << 1);
    int sample = (int) Math.max(1, Long.highestOneBit(Math.max(1, wanted / entries)));
    this.sampleMask = sample - 1;
    this.rejected = new Ghosts(entries);
    this.evicted = new Ghosts(entries);
    this.period = period;
  }

  /** The share of losers admitted now. */
  double share() {
    return share;
  }

  /** Periods that ended so far (for tests). */
  long steps() {
    return steps;
  }

  /** A block was written into the L2: the clock ticks. */
  void admitted() {
    clock.incrementAndGet();
  }

  /**
   * The door rejected {@code hash}: admits it anyway with the current share ({@code random}
   * uniform in {@code [0, 1)}), else remembers it. Returns whether to admit.
   */
  boolean loser(int hash, double random) {
    if (decisions.incrementAndGet() % period == 0) {
      adjust();
    }
    if (random < share) {
      return true;
    }
    if (sampled(hash)) {
      rejections.increment();
      rejected.add(hash, clock.get());
    }
    return false;
  }

  /** CLOCK evicted the block {@code hash} to make room. */
  void evicted(int hash) {
    if (sampled(hash)) {
      evictions.increment();
      evicted.add(hash, clock.get());
    }
  }

  /** A lookup of {@code hash} missed the L2. */
  void missed(int hash) {
    if (!sampled(hash)) {
      return;
    }
    long now = clock.get();
    if (rejected.remove(hash, now, horizon)) {
      rejectionRegrets.increment();
    } else if (evicted.remove(hash, now, horizon)) {
      evictionRegrets.increment();
    }
  }

  /** Ends a period: halves the weighted counts, adds the period's, steps the share. */
  void adjust() {
    if (!adjusting.tryLock()) {
      return;
    }
    try {
      wRejections = wRejections / 2 + rejections.sumThenReset();
      wRejectionRegrets = wRejectionRegrets / 2 + rejectionRegrets.sumThenReset();
      wEvictions = wEvictions / 2 + evictions.sumThenReset();
      wEvictionRegrets = wEvictionRegrets / 2 + evictionRegrets.sumThenReset();
      steps++;
      if (wRejections < MIN_EVENTS) {
        return; // too little evidence: an L2 with free space, or few losers
      }
      // Few evictions (the door rejects nearly everything) count as few regrets, not none known.
      double rejectionRate = wRejectionRegrets / wRejections;
      double evictionRate = wEvictionRegrets / Math.max(MIN_EVENTS, wEvictions);
      double s = share;
      if (rejectionRate > UP_MARGIN * evictionRate) {
        share = Math.min(MAX, s + STEP);
      } else if (rejectionRate < evictionRate) {
        share = Math.max(0, s - STEP);
      }
      if (LOG.isDebugEnabled()) {
        LOG.debug("L2 admission bypass: rejection regret {} of {}, eviction regret {} of {}, "
            + "share {}", (long) wRejectionRegrets, (long) wRejections, (long) wEvictionRegrets,
            (long) wEvictions, share);
      }
    } finally {
      adjusting.unlock();
    }
  }

  /** Heap bytes of the ghost tables and counters. */
  long heapBytes() {
    return rejected.heapBytes() + evicted.heapBytes() + 256;
  }

  private boolean sampled(int hash) {
    return (hash >>> 24 & sampleMask) == 0;
  }
}
