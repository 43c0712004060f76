/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.stats;

import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.CacheStats;

/**
 * Statistics of one tier, on HBase's {@link CacheStats} so that RegionServer metrics, the web UI
 * and {@code CombinedBlockCache.CombinedCacheStats} read them as they read HBase's own caches.
 *
 * <p>On top of HBase's counters a tier reports what it refused and what it passed on:
 * <ul>
 *   <li>{@link #failInsert()} (HBase's counter): blocks refused outright, e.g. too large;</li>
 *   <li>{@link #admissionRejected()}: new blocks the admission filter kept out because the block
 *       they would displace is used more often (they are still handed to the next tier);</li>
 *   <li>{@link #handedOff()}: evicted blocks given to the next tier instead of being lost.</li>
 * </ul>
 *
 * <p>Hits are counted in {@link HitCounts} (one atomic add per hit instead of CacheStats' four
 * {@code LongAdder} adds); every hit getter HBase reads is overridden to sum them, so RegionServer
 * metrics ({@code l1CacheHitRatio} and the per-type hit counts), the web UI and the stats window
 * see the same totals as before.
 *
 * <p>Concurrency: every counter is a {@link LongAdder}, a {@link HitCounts} stripe or HBase's own
 * thread-safe counter; any thread may update and read them. A roller thread runs only for stats built with periods
 * ({@link #TierStats(String, int, int)}), as HBase's caches do; {@link #stop()} ends it.
 */
public class TierStats extends CacheStats {
  private final LongAdder admissionRejected = new LongAdder();
  private final LongAdder handedOff = new LongAdder();
  private final LongAdder admitted = new LongAdder();
  private final LongAdder bytesWritten = new LongAdder();
  private final HitCounts hits = new HitCounts();

  public TierStats(String name) {
    super(name);
  }

  /**
   * Stats whose "past N periods" window has {@code periods} periods of {@code periodMinutes}
   * each, rolled by HBase's own timer ({@code hbase.blockcache.stats.periods},
   * {@code hbase.blockcache.stats.period.minutes}); no timer when either is too small to roll.
   * {@link #stop()} ends the timer.
   */
  public TierStats(String name, int periods, int periodMinutes) {
    super(name, periods, periodMinutes);
  }

  /** Stops the period roller, if any (the tier's shutdown). */
  public void stop() {
    if (getMetricsRollerScheduler() != null) {
      getMetricsRollerScheduler().shutdownNow();
    }
  }

  /** Counts one hit; HBase's contract, at one atomic add (see {@link HitCounts}). */
  @Override
  public void hit(boolean caching, boolean primary, BlockType type) {
    hits.hit(caching, primary, type);
  }

  @Override
  public long getHitCount() {
    return hits.total();
  }

  @Override
  public long getPrimaryHitCount() {
    return hits.primary();
  }

  @Override
  public long getHitCachingCount() {
    return hits.caching();
  }

  @Override
  public long getDataHitCount() {
    return hits.of(BlockType.DATA);
  }

  @Override
  public long getLeafIndexHitCount() {
    return hits.of(BlockType.LEAF_INDEX);
  }

  @Override
  public long getBloomChunkHitCount() {
    return hits.of(BlockType.BLOOM_CHUNK);
  }

  @Override
  public long getMetaHitCount() {
    return hits.of(BlockType.META);
  }

  @Override
  public long getRootIndexHitCount() {
    return hits.of(BlockType.ROOT_INDEX);
  }

  @Override
  public long getIntermediateIndexHitCount() {
    return hits.of(BlockType.INTERMEDIATE_INDEX);
  }

  @Override
  public long getFileInfoHitCount() {
    return hits.of(BlockType.FILE_INFO);
  }

  @Override
  public long getGeneralBloomMetaHitCount() {
    return hits.of(BlockType.GENERAL_BLOOM_META);
  }

  @Override
  public long getDeleteFamilyBloomHitCount() {
    return hits.of(BlockType.DELETE_FAMILY_BLOOM_META);
  }

  @Override
  public long getTrailerHitCount() {
    return hits.of(BlockType.TRAILER);
  }

  /** Counts one new block kept out by the admission filter. */
  public void admissionReject() {
    admissionRejected.increment();
  }

  /** Counts one new block let in by the admission filter (or admitted without one). */
  public void admit() {
    admitted.increment();
  }

  /** Counts {@code bytes} written to the tier's storage (device wear on file and pmem engines). */
  public void wrote(long bytes) {
    bytesWritten.add(bytes);
  }

  /** Counts one evicted block handed to the next tier. */
  public void handOff() {
    handedOff.increment();
  }

  public long admissionRejected() {
    return admissionRejected.sum();
  }

  public long handedOff() {
    return handedOff.sum();
  }

  public long admitted() {
    return admitted.sum();
  }

  /** Bytes written to the tier's storage since start: block bytes and their headers. */
  public long bytesWritten() {
    return bytesWritten.sum();
  }

  @Override
  public String toString() {
    return super.toString() + ", failedInserts=" + getFailedInserts() + ", admissionRejected="
        + admissionRejected() + ", admitted=" + admitted() + ", handedOff=" + handedOff()
        + ", bytesWritten=" + bytesWritten();
  }
}
