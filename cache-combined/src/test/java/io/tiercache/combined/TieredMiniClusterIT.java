/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.BucketTier;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.HeapMemoryManager;
import org.apache.hadoop.hbase.regionserver.MetricsRegionServerWrapper;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TierCache in a real, in-process HBase: ZooKeeper and HDFS mini clusters, and an HMaster plus one
 * RegionServer started by HBase's own {@link LocalHBaseCluster} (what standalone HBase runs),
 * which builds the RegionServer from {@code hbase.regionserver.impl}. TierCache is configured only
 * through the keys an operator writes in {@code hbase-site.xml} (see {@link #operatorKeys}).
 *
 * <p>Failsafe runs this class twice: against the modules, and with the shaded plugin jar in their
 * place ({@code tiercache.it.classes=plugin-jar}), where it also checks that the classes came from
 * that jar.
 */
class TieredMiniClusterIT {
  private static final long SEED = 20261121L;
  private static final TableName TABLE = TableName.valueOf("tiercache_it");
  private static final byte[] FAMILY = Bytes.toBytes("f");
  private static final byte[] QUALIFIER = Bytes.toBytes("q");
  private static final int ROWS = 20_000;
  private static final int VALUE_BYTES = 1000;
  private static final int RANDOM_GETS = 3_000;
  private static final float L1_FRACTION = 0.10f;
  private static final float TUNED_L1_FRACTION = 0.15f;

  private static HBaseTestingUtility util;
  private static LocalHBaseCluster cluster;
  private static Connection connection;

  /** The hbase-site.xml an operator writes for TierCache (plus the tuner range, see below). */
  static void operatorKeys(Configuration conf) {
    conf.set("hbase.regionserver.impl", "io.tiercache.combined.TieredRegionServer");
    conf.set("hbase.blockcache.class", "io.tiercache.combined.TieredBlockCache");
    // An existing hbase-site.xml for HBase's own combined cache, unchanged:
    conf.set("hbase.bucketcache.combinedcache.enabled", "true");
    conf.set("hbase.bucketcache.ioengine", "offheap");
    conf.set("hbase.bucketcache.size", "128");
    conf.set("hbase.bucketcache.writer.queuelength", "64");
    conf.set("hbase.bucketcache.writer.threads", "3");
    conf.set("hfile.block.cache.size", Float.toString(L1_FRACTION));
    conf.set("hbase.rs.evictblocksonclose", "true");
    // HeapMemoryManager may move the L1 between 5% and 20% of the heap; the test's tuner asks
    // for 15%, so the test sees HBase resize our L1.
    conf.set("hfile.block.cache.size.min.range", "0.05");
    conf.set("hfile.block.cache.size.max.range", "0.20");
    conf.set("hbase.regionserver.global.memstore.size.min.range", "0.30");
    conf.set("hbase.regionserver.global.memstore.size.max.range", "0.40");
    conf.set("hbase.regionserver.heapmemory.tuner.class", FixedL1Tuner.class.getName());
    conf.set("hbase.regionserver.heapmemory.tuner.period", "1000");
  }

  @BeforeAll
  static void startCluster() throws Exception {
    util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    operatorKeys(conf);
    conf.setBoolean(LocalHBaseCluster.ASSIGN_RANDOM_PORTS, true);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    cluster = MiniClusters.start(util, conf, 120_000);
    connection = ConnectionFactory.createConnection(conf);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    MiniClusters.stop(new AutoCloseable[] {connection}, cluster, util);
  }


  @Test
  void tierCacheServesARealRegionServer() throws Exception {
    HRegionServer rs = cluster.getRegionServer(0);
    assertInstanceOf(TieredRegionServer.class, rs);
    BlockCache installed = rs.getBlockCache().orElseThrow();
    TieredBlockCache cache = assertInstanceOf(TieredBlockCache.class, installed);
    assertEquals(TieringMode.HOT, cache.mode());
    checkClassesCameFromTheExpectedJar();

    long initialL1 = cache.l1().getMaxSize();
    assertEquals(maxHeap() * L1_FRACTION, initialL1, maxHeap() * 0.01,
        "L1 from hfile.block.cache.size");
    // 128 MB of direct memory for the offheap L2: 63 slabs of 2056 KB (the default slab), its
    // index and slot records carved out of the same budget
    assertEquals(63L * 2056 * 1024, cache.l2().getMaxSize(), "L2 from hbase.bucketcache.size");

    try (Admin admin = connection.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
      loadRows(admin);
      assertEquals(2, storeFiles(rs).size(), "two flushes, two store files");

      readEveryRow();
      randomGets();
      cache.l2().flush(30_000);

      // Hits came from both tiers, and HBase's metrics report exactly our tiers' figures.
      long l1Hits = cache.l1().getStats().getHitCount();
      long l2Hits = cache.l2().getStats().getHitCount();
      assertTrue(l1Hits > 0, "L1 (index/bloom) hits: " + l1Hits);
      assertTrue(l2Hits > 0, "L2 (data) hits: " + l2Hits);
      MetricsRegionServerWrapper metrics = rs.getMetrics().getRegionServerWrapper();
      assertEquals(cache.l1().getStats().getHitRatio(), metrics.getL1CacheHitRatio(), 0.0);
      assertEquals(cache.l2().getStats().getHitRatio(), metrics.getL2CacheHitRatio(), 0.0);
      assertEquals(l1Hits, metrics.getL1CacheHitCount());
      assertEquals(l2Hits, metrics.getL2CacheHitCount());
      assertEquals(cache.l1().getStats().getMissCount(), metrics.getL1CacheMissCount());
      assertEquals(cache.l2().getStats().getMissCount(), metrics.getL2CacheMissCount());
      assertTrue(cache.getStats() == cache.getStats(), "one live stats object");
      waitForJmx("l1CacheHitRatio", metrics.getL1CacheHitRatio());
      waitForJmx("l2CacheHitRatio", metrics.getL2CacheHitRatio());

      // HBase's HeapMemoryManager resizes our L1 (the test tuner asks for 15% of the heap).
      FixedL1Tuner.enabled = true;
      Waiter.waitFor(util.getConfiguration(), 60_000,
          () -> Math.abs(cache.l1().getMaxSize() - maxHeap() * TUNED_L1_FRACTION)
              < maxHeap() * 0.01);

      // Compaction: the blocks of the compacted-away files leave the cache; reads stay correct.
      Set<String> before = storeFiles(rs);
      assertTrue(cachedBlocksOf(cache, before) > 0, "the flushed files' blocks are cached");
      HRegion region = rs.getRegions(TABLE).get(0);
      region.compact(true);
      for (HStore store : region.getStores()) {
        store.closeAndArchiveCompactedFiles();
      }
      Set<String> after = storeFiles(rs);
      assertEquals(1, after.size());
      assertFalse(after.stream().anyMatch(before::contains));
      cache.l2().flush(30_000);
      assertEquals(0, cachedBlocksOf(cache, before), "blocks of compacted-away files");
      readEveryRow();
      randomGets();
      assertTrue(cachedBlocksOf(cache, after) > 0);

      // Admin.clearBlockCache reaches our cache.
      long evicted = admin.clearBlockCache(TABLE).getEvictedBlocks();
      assertTrue(evicted > 0, "clearBlockCache evicted " + evicted);
      assertEquals(0, cachedBlocksOf(cache, after));
      readEveryRow();
      cache.l2().flush(30_000);
      assertTrue(cachedBlocksOf(cache, after) > 0);

      // Closing the region (hbase.rs.evictblocksonclose) drops its blocks; reopened, reads agree.
      RegionInfo info = region.getRegionInfo();
      admin.unassign(info.getRegionName(), true);
      Waiter.waitFor(util.getConfiguration(), 60_000, () -> rs.getRegions(TABLE).isEmpty());
      assertEquals(0, cachedBlocksOf(cache, after), "blocks of the closed region's files");
      admin.assign(info.getRegionName());
      Waiter.waitFor(util.getConfiguration(), 60_000, () -> !rs.getRegions(TABLE).isEmpty());
      readEveryRow();
      randomGets();
      cache.checkInvariants();
    }
  }

  /** Fails unless TierCache's classes came from the jar this run is for (see the pom). */
  static void checkClassesCameFromTheExpectedJar() {
    String expected = System.getProperty("tiercache.it.classes", "modules");
    for (Class<?> c : new Class<?>[] {TieredBlockCache.class, BucketTier.class}) {
      String where = String.valueOf(c.getProtectionDomain().getCodeSource().getLocation());
      if (expected.equals("plugin-jar")) {
        assertTrue(where.endsWith("-plugin.jar"), c.getName() + " loaded from " + where);
      } else {
        assertFalse(where.endsWith("-plugin.jar"), c.getName() + " loaded from " + where);
      }
    }
  }

  private static long maxHeap() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax();
  }

  private static byte[] row(int i) {
    byte[] key = Bytes.toBytes(String.format("row-%022d", i));
    assertEquals(26, key.length);
    return key;
  }

  private static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    new Random(SEED * 31 + i).nextBytes(v);
    return v;
  }

  private static void loadRows(Admin admin) throws Exception {
    try (Table table = connection.getTable(TABLE)) {
      for (int half = 0; half < 2; half++) {
        List<Put> puts = new ArrayList<>();
        for (int i = half; i < ROWS; i += 2) {
          puts.add(new Put(row(i)).addColumn(FAMILY, QUALIFIER, value(i)));
          if (puts.size() == 1000) {
            table.put(puts);
            puts.clear();
          }
        }
        table.put(puts);
        admin.flush(TABLE);
      }
    }
  }

  private static void readEveryRow() throws Exception {
    int seen = 0;
    try (Table table = connection.getTable(TABLE);
        ResultScanner scanner = table.getScanner(new Scan().setCaching(500))) {
      for (Result r : scanner) {
        assertArrayEquals(row(seen), r.getRow());
        assertArrayEquals(value(seen), r.getValue(FAMILY, QUALIFIER), "row " + seen);
        seen++;
      }
    }
    assertEquals(ROWS, seen);
  }

  private static void randomGets() throws Exception {
    Random random = new Random(SEED);
    try (Table table = connection.getTable(TABLE)) {
      for (int n = 0; n < RANDOM_GETS; n++) {
        int i = random.nextInt(ROWS);
        Result r = table.get(new Get(row(i)));
        assertArrayEquals(value(i), r.getValue(FAMILY, QUALIFIER),
            "row " + i + " (seed " + SEED + ")");
      }
    }
  }

  private static Set<String> storeFiles(HRegionServer rs) {
    Set<String> names = new HashSet<>();
    for (HRegion region : rs.getRegions(TABLE)) {
      for (HStore store : region.getStores()) {
        for (HStoreFile f : store.getStorefiles()) {
          names.add(f.getPath().getName());
        }
      }
    }
    return names;
  }

  private static int cachedBlocksOf(BlockCache cache, Set<String> files) {
    int n = 0;
    for (Iterator<CachedBlock> it = cache.iterator(); it.hasNext();) {
      if (files.contains(it.next().getFilename())) {
        n++;
      }
    }
    return n;
  }

  private static void waitForJmx(String attribute, double expected) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = new ObjectName("Hadoop:service=HBase,name=RegionServer,sub=Server");
    Waiter.waitFor(util.getConfiguration(), 60_000, () -> server.isRegistered(name)
        && ((Number) server.getAttribute(name, attribute)).doubleValue() == expected);
  }

  /** The test's HeapMemoryTuner: once enabled, asks for an L1 of 15% of the heap. */
  public static final class FixedL1Tuner
      implements org.apache.hadoop.hbase.regionserver.HeapMemoryTuner {
    static volatile boolean enabled;
    private Configuration conf;

    @Override
    public HeapMemoryManager.TunerResult tune(HeapMemoryManager.TunerContext context) {
      if (!enabled) {
        return new HeapMemoryManager.TunerResult(false);
      }
      HeapMemoryManager.TunerResult result = new HeapMemoryManager.TunerResult(true);
      result.setBlockCacheSize(TUNED_L1_FRACTION);
      result.setMemStoreSize(context.getCurMemStoreSize());
      return result;
    }

    @Override
    public void setConf(Configuration conf) {
      this.conf = conf;
    }

    @Override
    public Configuration getConf() {
      return conf;
    }
  }
}
