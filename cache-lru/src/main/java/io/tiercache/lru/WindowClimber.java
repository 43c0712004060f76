/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

/**
 * Sizes the L1's admission window by hill climbing on the hit rate, as Caffeine's adaptive
 * W-TinyLFU does (Einziger, Eytan, Friedman, Manes: "Adaptive Software Cache Management",
 * Middleware 2018).
 *
 * <h2>Algorithm</h2>
 * Requests (hits drained from the read buffer, and misses, which are the inserts of new blocks)
 * are counted in samples of {@code 10 ×} the number of blocks the cache holds (at least 1,000).
 * At the end of a sample the hit rate is compared with the previous sample's:
 * <ul>
 *   <li>no worse: step again in the same direction; worse: step back the other way;</li>
 *   <li>the step decays by {@value #DECAY} per sample, so the window settles;</li>
 *   <li>a change of the hit rate of {@value #RESTART_THRESHOLD} or more (a new workload) restarts
 *       the step at {@value #RESTART_STEP} of the cache.</li>
 * </ul>
 * The first step shrinks the window. Samples start once the cache has been full (before that
 * every request is a cold miss and says nothing about the window). The window share returned is
 * clamped to {@code [0, max]}; at a bound the step is kept, so noise in the next sample decides
 * whether to come back. When {@link WindowSims} moves the window elsewhere ({@link #jumped}),
 * the next step is half a restart step onwards in the jump's direction: on the side of the
 * valley the models found better, not back into it.
 *
 * <h2>Concurrency</h2>
 * Not thread safe: the policy calls it under the L1's eviction lock.
 */
final class WindowClimber {
  /** Step after a restart, as a share of the cache. */
  static final double RESTART_STEP = 0.0625;
  /** Factor applied to the step after every sample. */
  static final double DECAY = 0.98;
  /** Change of hit rate (absolute) between two samples that restarts the step. */
  static final double RESTART_THRESHOLD = 0.05;

  private long sampleSize = 1;
  private long hits;
  private long misses;
  private boolean started;
  private double previousHitRate;
  private double step = -RESTART_STEP;

  /** Sets the sample length for a cache of about {@code blocks} blocks. */
  void setCapacity(long blocks) {
    sampleSize = Math.max(1_000, Math.min(Integer.MAX_VALUE, 10 * blocks));
  }

  /** Starts sampling: the cache is full. Idempotent. */
  void start() {
    started = true;
  }

  /** Starts over (a new configuration): no sample, the first step shrinks again. */
  void reset() {
    hits = 0;
    misses = 0;
    started = false;
    previousHitRate = 0;
    step = -RESTART_STEP;
  }

  /** Counts {@code n} hits (a sampled hit stands for several). */
  void hit(int n) {
    if (started) {
      hits += n;
    }
  }

  void miss() {
    if (started) {
      misses++;
    }
  }

  /** Whether a sample is complete and {@link #adjust} should run. */
  boolean due() {
    return hits + misses >= sampleSize;
  }

  /**
   * Ends the sample: returns the next window share for a window now at {@code share}, within
   * {@code [0, max]}.
   */
  double adjust(double share, double max) {
    double hitRate = (double) hits / (hits + misses);
    double change = hitRate - previousHitRate;
    double amount = change >= 0 ? step : -step;
    step = Math.abs(change) >= RESTART_THRESHOLD
        ? Math.copySign(RESTART_STEP, amount)
        : DECAY * amount;
    previousHitRate = hitRate;
    hits = 0;
    misses = 0;
    return Math.max(0, Math.min(max, share + amount));
  }

  /** The window jumped (up or down) on the models' word: go on from there the same way. */
  void jumped(boolean up) {
    step = up ? RESTART_STEP / 2 : -RESTART_STEP / 2;
  }

  double step() {
    return step;
  }
}
