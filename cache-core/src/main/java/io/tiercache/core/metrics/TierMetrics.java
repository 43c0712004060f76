/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import org.apache.hadoop.hbase.io.HeapSize;

/**
 * A tier's metrics: what every tier reports ({@link #common}), plus what a tier kind adds
 * ({@code LruTierMetrics} in cache-lru, {@code BucketTierMetrics} in cache-bucket). A snapshot
 * reads the tier's counters and getters; it runs on the metrics system's or the stats logger's
 * thread, never on the cache's hot path, and may allocate.
 */
public interface TierMetrics {
  /** The tier's prefix in metric names: {@code l1} or {@code l2}. */
  String prefix();

  /** Writes the tier's metrics. */
  void snapshot(MetricsOut out);

  /**
   * What the periodic stats line adds after the counters, e.g. the L2's occupancy per size
   * class; empty by default.
   */
  default String detail() {
    return "";
  }

  /** Writes what every {@link CacheTier} reports: HBase's stats, TierCache's and the sizes. */
  static void common(CacheTier tier, String prefix, MetricsOut out) {
    TierStats s = tier.getStats();
    long hits = s.getHitCount();
    long requests = s.getRequestCount();
    out.add(Metrics.HITS, hits, prefix);
    out.add(Metrics.MISSES, s.getMissCount(), prefix);
    out.add(Metrics.REQUESTS, requests, prefix);
    out.add(Metrics.HIT_RATIO, requests == 0 ? 0.0 : (double) hits / requests, prefix);
    out.add(Metrics.EVICTED, s.getEvictedCount(), prefix);
    out.add(Metrics.FAILED_INSERTS, s.getFailedInserts(), prefix);
    out.add(Metrics.ADMITTED, s.admitted(), prefix);
    out.add(Metrics.ADMISSION_REJECTED, s.admissionRejected(), prefix);
    out.add(Metrics.HANDED_OFF, s.handedOff(), prefix);
    out.add(Metrics.BYTES_WRITTEN, s.bytesWritten(), prefix);
    out.add(Metrics.SIZE, tier.getCurrentSize(), prefix);
    out.add(Metrics.DATA_SIZE, tier.getCurrentDataSize(), prefix);
    out.add(Metrics.MAX_SIZE, tier.getMaxSize(), prefix);
    out.add(Metrics.FREE_SIZE, tier.getFreeSize(), prefix);
    out.add(Metrics.BLOCKS, tier.getBlockCount(), prefix);
    out.add(Metrics.DATA_BLOCKS, tier.getDataBlockCount(), prefix);
    if (tier instanceof HeapSize) {
      out.add(Metrics.HEAP_SIZE, ((HeapSize) tier).heapSize(), prefix);
    }
  }
}
