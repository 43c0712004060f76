/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.subject;

import io.tiercache.core.stats.TierStats;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.apache.hadoop.hbase.io.hfile.CombinedBlockCache;
import org.apache.hadoop.hbase.io.hfile.bucket.BucketCache;

/**
 * A snapshot of a cache's own counters: hits and requests per tier where there are two, blocks
 * refused (HBase's failed inserts: too large, over the hard limit, writer queue full) and, for
 * TierCache tiers, blocks kept out by admission and bytes written to the L2's engine.
 *
 * <p>Two tiers are recognised as HBase's RegionServer metrics recognise them: a
 * {@link CombinedBlockCache.CombinedCacheStats} (L1 = LRU stats, L2 = bucket stats), or else
 * {@link BlockCache#getBlockCaches()} with two entries.
 *
 * <p>Concurrency: an immutable snapshot; the counters it reads are HBase's thread-safe ones.
 */
public final class CacheCounters {
  public final long l1Hits;
  public final long l1Requests;
  public final long l2Hits;
  public final long l2Requests;
  /** Whether the cache has two tiers; the l2 fields are zero otherwise. */
  public final boolean tiered;
  public final long failedInserts;
  public final long admissionRejected;
  /**
   * Bytes written to an L2 engine ({@link TierStats#bytesWritten()} of every TierCache tier;
   * 0 for a cache without an L2), or -1 where the cache holds an HBase {@link BucketCache},
   * which counts no bytes written.
   */
  public final long bytesWritten;

  private CacheCounters(long l1Hits, long l1Requests, long l2Hits, long l2Requests,
      boolean tiered, long failedInserts, long admissionRejected, long bytesWritten) {
    this.l1Hits = l1Hits;
    this.l1Requests = l1Requests;
    this.l2Hits = l2Hits;
    this.l2Requests = l2Requests;
    this.tiered = tiered;
    this.failedInserts = failedInserts;
    this.admissionRejected = admissionRejected;
    this.bytesWritten = bytesWritten;
  }

  /** Reads the counters of {@code cache} now. */
  public static CacheCounters of(BlockCache cache) {
    CacheStats top = cache.getStats();
    CacheStats l1 = top;
    CacheStats l2 = null;
    if (top instanceof CombinedBlockCache.CombinedCacheStats) {
      l1 = ((CombinedBlockCache.CombinedCacheStats) top).getLruCacheStats();
      l2 = ((CombinedBlockCache.CombinedCacheStats) top).getBucketCacheStats();
    }
    BlockCache[] tiers = cache.getBlockCaches();
    boolean bucketCache = cache instanceof BucketCache;
    if (tiers != null) {
      for (BlockCache tier : tiers) {
        bucketCache |= tier instanceof BucketCache;
      }
    }
    if (l2 == null) {
      if (tiers != null && tiers.length == 2) {
        l1 = tiers[0].getStats();
        l2 = tiers[1].getStats();
      }
    }
    long rejected =
        l2 == null ? admissionRejected(top) : admissionRejected(l1) + admissionRejected(l2);
    return new CacheCounters(l1.getHitCount(), l1.getRequestCount(),
        l2 == null ? 0 : l2.getHitCount(), l2 == null ? 0 : l2.getRequestCount(), l2 != null,
        l2 == null ? top.getFailedInserts() : l1.getFailedInserts() + l2.getFailedInserts(),
        rejected, bucketCache ? -1 : l2 == null ? bytesWritten(top)
            : bytesWritten(l1) + bytesWritten(l2));
  }

  /** The counts between {@code before} and this snapshot. */
  public CacheCounters minus(CacheCounters before) {
    return new CacheCounters(l1Hits - before.l1Hits, l1Requests - before.l1Requests,
        l2Hits - before.l2Hits, l2Requests - before.l2Requests, tiered,
        failedInserts - before.failedInserts, admissionRejected - before.admissionRejected,
        bytesWritten < 0 || before.bytesWritten < 0 ? -1 : bytesWritten - before.bytesWritten);
  }

  private static long bytesWritten(CacheStats stats) {
    return stats instanceof TierStats ? ((TierStats) stats).bytesWritten() : 0;
  }

  private static long admissionRejected(CacheStats stats) {
    return stats instanceof TierStats ? ((TierStats) stats).admissionRejected() : 0;
  }
}
