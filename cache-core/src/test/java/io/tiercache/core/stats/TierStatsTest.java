/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.stats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.function.ToLongFunction;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.junit.jupiter.api.Test;

/** TierStats counts hits its own way; every getter HBase reads must answer as CacheStats does. */
class TierStatsTest {
  private static final long SEED = 20261126L;

  /** The hit getters of CacheStats, each compared between the two implementations. */
  @SuppressWarnings("unchecked")
  private static final ToLongFunction<CacheStats>[] GETTERS = new ToLongFunction[] {
    (ToLongFunction<CacheStats>) CacheStats::getHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getPrimaryHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getHitCachingCount,
    (ToLongFunction<CacheStats>) CacheStats::getRequestCount,
    (ToLongFunction<CacheStats>) CacheStats::getRequestCachingCount,
    (ToLongFunction<CacheStats>) CacheStats::getDataHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getLeafIndexHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getBloomChunkHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getMetaHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getRootIndexHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getIntermediateIndexHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getFileInfoHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getGeneralBloomMetaHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getDeleteFamilyBloomHitCount,
    (ToLongFunction<CacheStats>) CacheStats::getTrailerHitCount,
  };

  @Test
  void hit_everyFlagAndType_gettersMatchHBaseCacheStats() {
    CacheStats hbase = new CacheStats("hbase", 3);
    TierStats tier = new TierStats("tier", 3, 0);
    SplittableRandom random = new SplittableRandom(SEED);
    BlockType[] types = BlockType.values();
    for (int i = 0; i < 20_000; i++) {
      boolean caching = random.nextBoolean();
      boolean primary = random.nextBoolean();
      int t = random.nextInt(types.length + 1);
      BlockType type = t == types.length ? null : types[t];
      if (random.nextInt(4) == 0) {
        hbase.miss(caching, primary, type);
        tier.miss(caching, primary, type);
      } else {
        hbase.hit(caching, primary, type);
        tier.hit(caching, primary, type);
      }
      if (i % 7_000 == 0) {
        hbase.rollMetricsPeriod();
        tier.rollMetricsPeriod();
      }
    }
    for (int g = 0; g < GETTERS.length; g++) {
      assertEquals(GETTERS[g].applyAsLong(hbase), GETTERS[g].applyAsLong(tier),
          "getter " + g + ", seed " + SEED);
    }
    assertEquals(hbase.getHitRatio(), tier.getHitRatio(), 0.0, "seed " + SEED);
    assertEquals(hbase.getHitCachingRatio(), tier.getHitCachingRatio(), 0.0, "seed " + SEED);
    assertArrayEquals(hbase.getHitCounts(), tier.getHitCounts(), "seed " + SEED);
    assertArrayEquals(hbase.getRequestCounts(), tier.getRequestCounts(), "seed " + SEED);
    assertEquals(hbase.getSumHitCachingCountsPastNPeriods(),
        tier.getSumHitCachingCountsPastNPeriods(), "seed " + SEED);
  }

  @Test
  void hit_fromFourThreads_countsEveryHit() throws Exception {
    TierStats tier = new TierStats("tier");
    int threads = 4;
    int perThread = 50_000;
    CountDownLatch start = new CountDownLatch(1);
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      boolean primary = t % 2 == 0;
      workers[t] = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int i = 0; i < perThread; i++) {
          tier.hit(true, primary, BlockType.DATA);
        }
      });
      workers[t].start();
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    assertEquals((long) threads * perThread, tier.getHitCount());
    assertEquals((long) threads * perThread, tier.getDataHitCount());
    assertEquals((long) threads * perThread, tier.getHitCachingCount());
    assertEquals((long) threads / 2 * perThread, tier.getPrimaryHitCount());
  }
}
