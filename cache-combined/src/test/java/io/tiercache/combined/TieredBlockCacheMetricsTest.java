/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import io.tiercache.core.metrics.Metric;
import io.tiercache.core.metrics.Metrics;
import io.tiercache.core.metrics.MetricsOut;
import io.tiercache.core.metrics.TierCacheSource;
import io.tiercache.lru.LruTier;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.junit.jupiter.api.Test;

/** The combined cache's metrics source, as a RegionServer registers it, read back from JMX. */
class TieredBlockCacheMetricsTest {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  private static TieredBlockCache newCache(String mode) {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.memory.size", "8m");
    conf.set("hbase.bucketcache.ioengine", "offheap");
    conf.set("hbase.bucketcache.size", "16");
    conf.set("tiercache.bucket.slab.size", "1m");
    conf.set("tiercache.combined.mode", mode);
    conf.set("tiercache.metrics.log.interval", "0");
    return new TieredBlockCache(conf);
  }

  private static BlockCacheKey key(String table, String region, String file, long offset) {
    return new BlockCacheKey(new Path("/hbase/data/default/" + table + "/" + region + "/f/" + file),
        offset, true, BlockType.DATA);
  }

  private static long attr(ObjectName name, String attribute) throws Exception {
    return ((Number) JMX.getAttribute(name, attribute)).longValue();
  }

  @Test
  void cacheAndRead_moveTheJmxMetrics_andShutdownUnregisters() throws Exception {
    TieredBlockCache cache = newCache("hbase");
    ObjectName name;
    try {
      TierCacheSource source = cache.metricsSource().orElseThrow();
      name = new ObjectName(source.objectName());
      assertTrue(JMX.isRegistered(name), name.toString());
      for (int i = 0; i < 20; i++) {
        BlockCacheKey k = key("t1", "r1", "file1", i * 10_000L);
        cache.cacheBlock(k, TestBlocks.heap("file1", i * 10_000L, 8_000, BlockType.DATA),
            false, true);
      }
      assertTrue(cache.l2().flush(10_000));
      Cacheable hit = cache.getBlock(key("t1", "r1", "file1", 0), true, false, true);
      assertNotNull(hit);
      hit.release();
      assertEquals(null, cache.getBlock(key("t1", "r1", "file1", 5), true, false, true));
      // JMX shows the values of the metrics system's last snapshot (kept for its period, 10 s
      // by default; TierCacheSourceTest and TierCacheMetricsIT read values through JMX); the
      // snapshot is what the metrics system takes.
      MetricsOut.Recorder r = new MetricsOut.Recorder();
      source.snapshot(r);
      assertEquals(1L, r.values().get("l2_hitCount"));
      assertEquals(20L, r.values().get("l2_blockCount"));
      assertTrue((Long) r.values().get("table_default_t1_cachedBytes") >= 20 * 8_000L);
      assertEquals(1L, r.values().get("table_default_t1_hitCount"));
      assertEquals(2L, r.values().get("table_default_t1_requestCount"));
      assertEquals(20L, r.values().get("l2_class_9216_usedSlots"), "8000-byte blocks, 9K slots");
      for (String attribute : new String[] {"l2_hitCount", "table__other_cachedBytes",
          "l1_hitRatio", "l2_writeQueueDepth"}) {
        attr(name, attribute); // present in JMX (the attribute list is built at registration)
      }
      assertEquals("hbase", JMX.getAttribute(name, "tag.mode"));
      assertEquals("offheap", JMX.getAttribute(name, "tag.l2Engine"));
    } finally {
      cache.shutdown();
    }
    assertFalse(JMX.isRegistered(name), "unregistered at shutdown");
  }

  @Test
  void snapshot_ofARunningCache_publishesEveryDocumentedMetricAndNoOther() {
    TieredBlockCache cache = newCache("exclusive");
    try {
      BlockCacheKey k = key("t2", "r2", "file2", 0);
      cache.cacheBlock(k, TestBlocks.heap("file2", 0, 4_000, BlockType.DATA), false, true);
      cache.getBlock(k, true, false, true).release();
      cache.l1().setMaxSize(1); // exclusive: the L1's victims go to the L2
      cache.l2().flush(10_000);
      MetricsOut.Recorder r = new MetricsOut.Recorder();
      cache.metricsSource().orElseThrow().snapshot(r);
      List<String> missing = new ArrayList<>();
      for (Metric m : Metrics.all()) {
        if (r.values().keySet().stream().noneMatch(m::matches)) {
          missing.add(m.template());
        }
      }
      assertEquals(List.of(), missing, "published: " + r.values().keySet());
      for (String n : r.values().keySet()) {
        assertNotNull(Metrics.of(n), n);
      }
      assertEquals(-1L, r.values().get("l2_checkpointAge"), "an offheap L2 has no checkpoints");
      assertEquals(0L, r.values().get("l2_restoring"));
    } finally {
      cache.shutdown();
    }
  }

  @Test
  void twoCachesInOneJvm_registerUnderTwoNames() {
    TieredBlockCache a = newCache("hbase");
    TieredBlockCache b = newCache("hbase");
    try {
      assertFalse(a.metricsSource().orElseThrow().name()
          .equals(b.metricsSource().orElseThrow().name()));
    } finally {
      a.shutdown();
      b.shutdown();
      a.shutdown();
    }
  }
  /** {@code hbase.blockcache.class=io.tiercache.lru.LruTier}: the L1 alone has its own source. */
  @Test
  void loadedAlone_lruTier_registersItsOwnSource_andShutdownUnregisters() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("hbase.blockcache.class", LruTier.class.getName());
    conf.set("hfile.block.cache.memory.size", "8m");
    conf.set("tiercache.metrics.log.interval", "0");
    LruTier tier = assertInstanceOf(LruTier.class, BlockCacheLoader.create(conf));
    ObjectName name;
    try {
      TierCacheSource source = tier.metricsSource().orElseThrow();
      name = new ObjectName(source.objectName());
      assertTrue(JMX.isRegistered(name), name.toString());
      BlockCacheKey k = key("t3", "r3", "file3", 0);
      tier.cacheBlock(k, TestBlocks.heap("file3", 0, 4_000, BlockType.DATA), false);
      tier.getBlock(k, true, false, true).release();
      MetricsOut.Recorder r = new MetricsOut.Recorder();
      source.snapshot(r);
      assertEquals(1L, r.values().get("l1_hitCount"));
      assertEquals(1L, r.values().get("l1_blockCount"));
      for (String n : r.values().keySet()) {
        assertTrue(n.startsWith("l1_"), "an L1 alone publishes l1_ metrics only: " + n);
      }
      assertEquals("l1-only", JMX.getAttribute(name, "tag.mode"));
      tier.publishMetrics(conf); // a second call registers nothing more
      assertEquals(source, tier.metricsSource().orElseThrow());
    } finally {
      tier.shutdown();
    }
    assertFalse(JMX.isRegistered(name), "unregistered at shutdown");
    assertTrue(tier.metricsSource().isPresent(), "kept, unregistered, after shutdown");
  }

  @Test
  void builtInsideTheCombinedCache_lruTier_registersNoSourceOfItsOwn() {
    TieredBlockCache cache = newCache("hbase");
    try {
      assertTrue(cache.metricsSource().isPresent());
      assertFalse(cache.l1().metricsSource().isPresent());
    } finally {
      cache.shutdown();
    }
  }
}
