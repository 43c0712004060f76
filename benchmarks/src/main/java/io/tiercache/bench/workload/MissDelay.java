/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import java.util.concurrent.locks.LockSupport;

/**
 * A fixed remote-read latency added to every miss (the storage-bound miss regime): the reading
 * thread parks, as a RegionServer handler waits on an HDFS read, so the core is free for other
 * threads meanwhile. What each wait really took is recorded, since a parked thread wakes late
 * under load.
 *
 * <p>Concurrency: one instance per worker thread; its counters are read after the worker has
 * arrived at the phase barrier (a happens-before edge).
 */
public final class MissDelay {
  /** No added latency: misses cost the page-cache read alone. */
  public static final MissDelay NONE = new MissDelay(0);

  private final long nanos;
  private long waitedNanos;
  private long waits;

  public MissDelay(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("miss latency " + nanos + " ns");
    }
    this.nanos = nanos;
  }

  /** Parks for the latency (re-parking after an early wake-up), and records the time waited. */
  void await() {
    if (nanos == 0) {
      return;
    }
    long start = System.nanoTime();
    long deadline = start + nanos;
    long now = start;
    // Bounded: each spurious wake-up re-parks for what is left; at most a few rounds.
    for (int round = 0; round < 1_000 && now - deadline < 0; round++) {
      LockSupport.parkNanos(deadline - now);
      now = System.nanoTime();
    }
    waitedNanos += now - start;
    waits++;
  }

  /** The latency asked for, in nanoseconds. */
  public long nanos() {
    return nanos;
  }

  /** Total nanoseconds this delay's thread really waited. */
  public long waitedNanos() {
    return waitedNanos;
  }

  /** Waits so far (one per miss). */
  public long waits() {
    return waits;
  }

  /** Forgets the waits so far (at the start of the measured phase). */
  public void reset() {
    waitedNanos = 0;
    waits = 0;
  }
}
