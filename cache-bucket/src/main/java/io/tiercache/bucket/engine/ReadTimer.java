/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.util.concurrent.atomic.LongAdder;

/**
 * The reads an engine timed and the time they took: the counterpart of HBase's
 * {@code BucketCacheStats} "hits per second" and "time per hit". Only engines that read through
 * the kernel ({@code file:}, {@code files:}) time their reads: there a read costs microseconds
 * to milliseconds and two clock reads are noise. A memory engine's hit is a pinned view over
 * memory with no copy, where two clock reads and a counter would be a visible share of the hit,
 * so memory engines have no timer ({@link Engine#readTimer()} is null).
 *
 * <p>Thread safe: any reader records; counters are {@link LongAdder}s, so readers never contend
 * on one cache line. A snapshot may see a count without its time (or the reverse) for one read.
 */
public final class ReadTimer {
  private final LongAdder reads = new LongAdder();
  private final LongAdder nanos = new LongAdder();

  /** Records one read that took {@code elapsedNanos}. */
  void record(long elapsedNanos) {
    reads.increment();
    nanos.add(elapsedNanos);
  }

  /** Reads recorded since start. */
  public long reads() {
    return reads.sum();
  }

  /** Nanoseconds those reads took, in all. */
  public long nanos() {
    return nanos.sum();
  }
}
