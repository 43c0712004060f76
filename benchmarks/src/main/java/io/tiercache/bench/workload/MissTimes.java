/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import org.HdrHistogram.Histogram;

/**
 * Where a miss's time goes, per worker: the <em>fetch</em> (the regime's added wait and the
 * positional read of the block, the same work whatever the cache) and the <em>insert</em> (the
 * cache's {@code cacheBlock} of what was fetched, the cache's own share of a miss). Each is an
 * HdrHistogram of nanoseconds (3 significant digits); the lookup that missed and the check of
 * the bytes are in neither. Also the bytes of the blocks missed: with mixed block sizes, a cache
 * whose misses are the larger blocks pays more per miss, whatever its insert costs.
 *
 * <p>Concurrency: one instance per worker thread, recorded only by it; read after the worker has
 * arrived at the phase barrier (a happens-before edge), or merged into another instance then.
 */
public final class MissTimes {
  /** Latencies above this are recorded as this (an HdrHistogram needs a bound): one minute. */
  public static final long MAX_NANOS = 60_000_000_000L;

  private final Histogram fetch = new Histogram(MAX_NANOS, 3);
  private final Histogram insert = new Histogram(MAX_NANOS, 3);
  private long bytes;

  void record(long fetchNanos, long insertNanos, int blockBytes) {
    fetch.recordValue(Math.max(0, Math.min(fetchNanos, MAX_NANOS)));
    insert.recordValue(Math.max(0, Math.min(insertNanos, MAX_NANOS)));
    bytes += blockBytes;
  }

  /** Adds {@code other}'s misses to these. */
  public void add(MissTimes other) {
    fetch.add(other.fetch);
    insert.add(other.insert);
    bytes += other.bytes;
  }

  /** Mean serialized size of a missed block in bytes; NaN without a miss. */
  public double meanBytes() {
    return misses() == 0 ? Double.NaN : (double) bytes / misses();
  }

  /** Misses recorded. */
  public long misses() {
    return fetch.getTotalCount();
  }

  /** The fetch's latency at {@code percentile} (0 to 100) in ns; NaN without a miss. */
  public double fetchNanos(double percentile) {
    return misses() == 0 ? Double.NaN : fetch.getValueAtPercentile(percentile);
  }

  /** The insert's latency at {@code percentile} (0 to 100) in ns; NaN without a miss. */
  public double insertNanos(double percentile) {
    return misses() == 0 ? Double.NaN : insert.getValueAtPercentile(percentile);
  }
}
