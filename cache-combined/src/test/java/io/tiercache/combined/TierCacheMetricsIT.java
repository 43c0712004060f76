/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
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
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 14 on an in-process HBase: TierCache's metrics read back through JMX (the platform
 * MBean server, as a JMX client or HBase's {@code /jmx} servlet reads them), and the
 * RegionServer's block-cache pages fetched over HTTP on loopback. Measurements are printed on
 * lines starting with {@code [issue-14]}.
 */
class TierCacheMetricsIT {
  private static final long SEED = 20261124L;
  private static final TableName TABLE = TableName.valueOf("it14_metrics");
  private static final String TABLE_METRIC = "table_default_it14_metrics_";
  private static final byte[] FAMILY = Bytes.toBytes("f");
  private static final byte[] QUALIFIER = Bytes.toBytes("q");
  private static final int ROWS = 5_000;
  private static final int VALUE_BYTES = 1000;
  private static final long WAIT_MS = 120_000;
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  private static HBaseTestingUtility util;
  private static Configuration conf;
  private static LocalHBaseCluster cluster;
  private static Connection connection;

  @BeforeAll
  static void startCluster() throws Exception {
    util = new HBaseTestingUtility();
    conf = util.getConfiguration();
    conf.set("hbase.regionserver.impl", "io.tiercache.combined.TieredRegionServer");
    conf.set("hbase.blockcache.class", "io.tiercache.combined.TieredBlockCache");
    conf.set("hbase.bucketcache.ioengine", "offheap");
    conf.set("hbase.bucketcache.size", "32");
    conf.set("tiercache.bucket.slab.size", "1m");
    conf.set("hfile.block.cache.size", "0.1");
    // The web-UI checks walk the L2's blocks: with hot mode's default move promotion the second
    // read pass would hand every block of this small table to the L1 and free its L2 slot.
    conf.set("tiercache.combined.hot.promotion", "copy");
    conf.setBoolean(LocalHBaseCluster.ASSIGN_RANDOM_PORTS, true);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", 0);
    conf.set("hbase.regionserver.info.bindAddress", "127.0.0.1");
    cluster = MiniClusters.start(util, conf, WAIT_MS);
    connection = ConnectionFactory.createConnection(conf);
    try (Admin admin = connection.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
      try (Table table = connection.getTable(TABLE)) {
        List<Put> puts = new ArrayList<>();
        Random random = new Random(SEED);
        for (int i = 0; i < ROWS; i++) {
          byte[] v = new byte[VALUE_BYTES];
          random.nextBytes(v);
          puts.add(new Put(row(i)).addColumn(FAMILY, QUALIFIER, v));
        }
        table.put(puts);
      }
      admin.flush(TABLE);
    }
    TieredMiniClusterIT.checkClassesCameFromTheExpectedJar();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    MiniClusters.stop(new AutoCloseable[] {connection}, cluster, util);
  }

  private static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%08d", i));
  }

  private static HRegionServer rs() {
    return cluster.getRegionServer(0);
  }

  private static TieredBlockCache cache() {
    return assertInstanceOf(TieredBlockCache.class, rs().getBlockCache().orElseThrow());
  }

  /** Reads every row twice (the second pass hits) and waits for the L2's writers. */
  private static void readTwice() throws Exception {
    try (Table table = connection.getTable(TABLE)) {
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < ROWS; i += 7) {
          Result r = table.get(new Get(row(i)));
          assertEquals(VALUE_BYTES, r.getValue(FAMILY, QUALIFIER).length, "row " + i);
        }
        assertTrue(cache().l2().flush(30_000));
      }
    }
  }

  /**
   * The RegionServer's TierCache bean: {@code Hadoop:service=HBase,name=RegionServer,
   * sub=TierCache} in a RegionServer's own JVM. In this test JVM the mini HDFS shares Hadoop's
   * metrics system with HBase, which it puts in mini-cluster mode: there the {@code service=}
   * part is whichever daemon initialised the system last, and a re-used name may get a suffix.
   * So the bean is found by pattern: exactly one must be live (waited for).
   */
  private static ObjectName tierCacheBean() throws Exception {
    ObjectName pattern = new ObjectName("Hadoop:name=RegionServer,sub=TierCache*,*");
    // The metrics system registers a source's bean when it has started, which in this JVM may
    // come after the RegionServer registered the source.
    Waiter.waitFor(conf, WAIT_MS, () -> JMX.queryNames(pattern, null).size() == 1);
    Set<ObjectName> names = JMX.queryNames(pattern, null);
    assertEquals(1, names.size(), names.toString());
    ObjectName name = names.iterator().next();
    System.out.println("[issue-14] TierCache bean: " + name);
    return name;
  }

  private static long attribute(ObjectName name, String attribute) throws Exception {
    try {
      return ((Number) JMX.getAttribute(name, attribute)).longValue();
    } catch (AttributeNotFoundException | InstanceNotFoundException e) {
      // not in the metrics system's JMX view yet (it refreshes once a period), or the bean is
      // being registered again (the shared metrics system of this JVM restarted)
      return -1;
    }
  }

  @Test
  void jmx_showsTheTiersAndTheTable_andTheCountersMove() throws Exception {
    assertTrue(cache().metricsSource().isPresent());
    ObjectName name = tierCacheBean();
    long hitsBefore = attribute(name, "l2_hitCount") + attribute(name, "l1_hitCount");
    readTwice();
    long hitsAfterReads = cache().getStats().getHitCount();
    // The metrics system refreshes its JMX view once a period (10 s by default).
    Waiter.waitFor(conf, WAIT_MS, () -> attribute(name, "l2_hitCount")
        + attribute(name, "l1_hitCount") > hitsBefore
        && attribute(name, TABLE_METRIC + "cachedBytes") > 0
        && attribute(name, TABLE_METRIC + "hitCount") > 0);
    long tableHits = attribute(name, TABLE_METRIC + "hitCount");
    long tableRequests = attribute(name, TABLE_METRIC + "requestCount");
    long tableBytes = attribute(name, TABLE_METRIC + "cachedBytes");
    System.out.println("[issue-14] JMX " + name + ": l1_hitCount " + attribute(name,
        "l1_hitCount") + ", l2_hitCount " + attribute(name, "l2_hitCount") + ", l2_size "
        + attribute(name, "l2_size") + ", " + TABLE_METRIC + "cachedBytes " + tableBytes
        + ", hits " + tableHits + " of " + tableRequests + " requests; cache hits "
        + hitsAfterReads);
    assertTrue(tableRequests >= tableHits);
    // HBase 3.0's keys name a region, not a path: the RegionServer names the region's table
    String region = rs().getRegions(TABLE).get(0).getRegionInfo().getEncodedName();
    assertEquals("default_it14_metrics",
        assertInstanceOf(TieredRegionServer.class, rs()).tableOfRegion(region));
    assertEquals(null, ((TieredRegionServer) rs()).tableOfRegion("0123456789abcdef"));
    assertTrue(attribute(name, "l2_size") > 0);
    assertTrue(attribute(name, "l2_blockCount") > 0);
    Waiter.waitFor(conf, WAIT_MS, () -> {
      try {
        return "hot".equals(JMX.getAttribute(name, "tag.mode"))
            && "offheap".equals(JMX.getAttribute(name, "tag.l2Engine"));
      } catch (InstanceNotFoundException e) {
        return false; // being registered again, see attribute()
      }
    });
  }

  @Test
  void webUi_blockCachePages_showTheTiers_andTheJsonViewListsL2Blocks() throws Exception {
    readTwice();
    int port = rs().getInfoServer().getPort();
    String base = "http://127.0.0.1:" + port + "/rs-status";
    String html = get(base);
    assertTrue(html.contains("TieredBlockCache") || html.contains("LruTier"), excerpt(html));
    assertTrue(html.contains("LruTier") && html.contains("BucketTier"),
        "both tiers on the block-cache tab: " + excerpt(html));
    for (String tier : new String[] {"L1", "L2"}) {
      String json = get(base + "?format=json&bcn=" + tier + "&bcv=json");
      System.out.println("[issue-14] GET /rs-status?format=json&bcn=" + tier + "&bcv=json: "
          + json.length() + " chars");
      assertTrue(json.trim().startsWith("[") && json.contains("\"hist\""), excerpt(json));
      // [ the tier, HBase's CachedBlocksByFile ]: the tier shows its metrics (TierJson), not {}
      JsonObject shown = JsonParser.parseString(json.replace("&quot;", "\"")).getAsJsonArray()
          .get(0).getAsJsonObject();
      System.out.println("[issue-14] " + tier + " in the JSON view: " + excerpt(shown.toString()));
      BlockCache expected = tier.equals("L1") ? cache().l1() : cache().l2();
      assertEquals(expected.getClass().getSimpleName(),
          shown.get("implementation").getAsString(), shown.toString());
      assertEquals(expected.getMaxSize(), shown.get("maxSize").getAsLong(), shown.toString());
      assertTrue(shown.get("blockCount").getAsLong() > 0, shown.toString());
      assertTrue(shown.get("hitCount").getAsLong() > 0 || tier.equals("L1"), shown.toString());
      assertTrue(shown.has("missCount") && shown.has("hitRatio") && shown.has("size"),
          shown.toString());
      if (tier.equals("L2")) {
        assertEquals("offheap", shown.get("engine").getAsString(), shown.toString());
        assertEquals(-1.0, shown.get("engineTimePerRead").getAsDouble(), shown.toString());
      }
    }
    // The per-block view: HBase walks the L2's iterator (BlockCacheUtil.CachedBlocksByFile, up
    // to hbase.ui.blockcache.by.file.max blocks) and writes one JSON object per file. HBase's
    // Gson there skips private fields (excludeFieldsWithModifiers(PRIVATE)), so 2.6.4 writes
    // each of its per-file objects as {}: what can be checked is one object per cached file.
    Set<String> l2Files = new HashSet<>();
    cache().l2().forEach(b -> l2Files.add(b.getFilename()));
    assertTrue(l2Files.contains(storeFileName()), l2Files.toString());
    long start = System.nanoTime();
    String byFile = get(base + "?format=json&bcn=L2&bcv=file").trim();
    System.out.println("[issue-14] GET /rs-status?format=json&bcn=L2&bcv=file: " + byFile.length()
        + " chars in " + (System.nanoTime() - start) / 1_000_000 + " ms, L2 blocks "
        + cache().l2().getBlockCount() + " in " + l2Files.size() + " files");
    assertTrue(byFile.startsWith("[") && byFile.endsWith("]"), excerpt(byFile));
    assertEquals(l2Files.size(), byFile.chars().filter(c -> c == '{').count(), excerpt(byFile));
  }

  private static String storeFileName() {
    return rs().getRegions(TABLE).get(0).getStores().get(0).getStorefiles().iterator().next()
        .getPath().getName();
  }

  private static String excerpt(String body) {
    return body.length() > 2000 ? body.substring(0, 2000) + "..." : body;
  }

  private static String get(String url) throws Exception {
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    c.setConnectTimeout(10_000);
    c.setReadTimeout(60_000);
    try {
      assertEquals(200, c.getResponseCode(), url);
      try (InputStream in = c.getInputStream()) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.UTF_8);
      }
    } finally {
      c.disconnect();
    }
  }
}
