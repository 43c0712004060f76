/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

class TableStatsTest {
  static BlockCacheKey key(String ns, String table, String region, String file, long offset) {
    return new BlockCacheKey(new Path("/hbase/data/" + ns + "/" + table + "/" + region + "/f/"
        + file), offset, true, BlockType.DATA);
  }

  private static Map<String, Number> snapshot(TableStats t, Map<String, Long> regionBytes) {
    MetricsOut.Recorder r = new MetricsOut.Recorder();
    t.snapshot(regionBytes, r);
    return r.values();
  }

  @Test
  void lookup_countsHitsAndRequestsPerTable_andRegionBytesGoToTheirTable() {
    TableStats t = new TableStats(10, 100);
    t.lookup(key("default", "a", "r1", "f1", 0), true);
    t.lookup(key("default", "a", "r1", "f1", 100), false);
    t.lookup(key("ns", "b", "r2", "f2", 0), true);
    t.cached(key("ns", "b", "r3", "f3", 0));
    Map<String, Number> v = snapshot(t, Map.of("r1", 1000L, "r2", 20L, "r3", 300L, "r9", 7L));
    assertEquals(2L, v.get("tablesTracked"));
    assertEquals(1L, v.get("table_default_a_hitCount"));
    assertEquals(2L, v.get("table_default_a_requestCount"));
    assertEquals(0.5, v.get("table_default_a_hitRatio"));
    assertEquals(1000L, v.get("table_default_a_cachedBytes"));
    assertEquals(320L, v.get("table_ns_b_cachedBytes"));
    assertEquals(1L, v.get("table_ns_b_requestCount"));
    assertEquals(7L, v.get("table__other_cachedBytes"), "a region of no known table");
  }

  @Test
  void lookup_beyondMaxTables_countsUnderOther() {
    TableStats t = new TableStats(1, 100);
    t.lookup(key("default", "a", "r1", "f1", 0), true);
    t.lookup(key("default", "b", "r2", "f2", 0), true);
    t.lookup(key("default", "c", "r3", "f3", 0), false);
    Map<String, Number> v = snapshot(t, Map.of("r2", 5L));
    assertEquals(1L, v.get("tablesTracked"));
    assertEquals(1L, v.get("table_default_a_requestCount"));
    assertEquals(2L, v.get("table__other_requestCount"));
    assertEquals(1L, v.get("table__other_hitCount"));
    assertEquals(5L, v.get("table__other_cachedBytes"));
    assertEquals(null, v.get("table_default_b_requestCount"));
  }

  @Test
  void lookup_afterTheFileMapFills_startsOverAndStillCountsEveryLookup() {
    TableStats t = new TableStats(10, 2);
    for (int i = 0; i < 10; i++) {
      t.lookup(key("default", "a", "r1", "f" + i, 0), true);
      t.forgetFile("f" + (i - 1));
    }
    assertEquals(10L, snapshot(t, Map.of()).get("table_default_a_hitCount"));
  }

  @Test
  void lookup_ofAKeyWithoutPath_isNotCounted() {
    TableStats t = new TableStats(10, 100);
    t.lookup(new BlockCacheKey("f1", 0), true);
    Map<String, Number> v = snapshot(t, Map.of());
    assertEquals(0L, v.get("tablesTracked"));
    assertEquals(0L, v.get("table__other_requestCount"));
  }

  @Test
  void lookup_ofAFileWhoseKeysHaveNoPath_isResolvedOnce_andAllocatesNothingAfter() {
    TableStats t = new TableStats(10, 100);
    BlockCacheKey k = new BlockCacheKey("f1", 0);
    t.lookup(k, true);
    assertAllocatesNothing(t, k);
    assertEquals(0L, snapshot(t, Map.of()).get("table__other_requestCount"));
  }

  @Test
  void lookup_ofAKnownFile_allocatesNothing() {
    TableStats t = new TableStats(10, 100);
    BlockCacheKey k = key("default", "a", "r1", "f1", 0);
    t.lookup(k, true);
    assertAllocatesNothing(t, k);
    assertEquals(300_001L + 20_000L, snapshot(t, Map.of()).get("table_default_a_requestCount"));
  }

  private static void assertAllocatesNothing(TableStats t, BlockCacheKey k) {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    for (int i = 0; i < 20_000; i++) { // warm up: the JIT removes what escape analysis can
      t.lookup(k, (i & 1) == 0);
    }
    // The least of three rounds: a one-off allocation in a round (a late JIT compilation, 1,480
    // bytes once in CI) is not a lookup's; an allocation per lookup (16 bytes or more) would be
    // 1.6 MB in every round.
    long least = Long.MAX_VALUE;
    for (int round = 0; round < 3; round++) {
      long before = mx.getThreadAllocatedBytes(tid);
      for (int i = 0; i < 100_000; i++) {
        t.lookup(k, (i & 1) == 0);
      }
      least = Math.min(least, mx.getThreadAllocatedBytes(tid) - before);
    }
    assertEquals(true, least < 1024, least + " bytes allocated by 100k lookups (least of 3)");
  }
  /**
   * HBase 3.0's keys name their region, not their path: the RegionServer's online regions tell
   * the table. Simulated on 2.6's classes with path-less keys and a region per file name.
   */
  @Test
  void lookup_keysWithARegionButNoPath_countForTheTableTheRegionServerNames() {
    Map<String, String> regionOfFile = Map.of("f1", "r1", "f2", "r2");
    Map<String, String> online = new java.util.HashMap<>(Map.of("r1", "default_a"));
    long[] now = {1_000L};
    TableStats t = new TableStats(10, 100, k -> regionOfFile.get(k.getHfileName()),
        () -> now[0]);
    t.resolveRegionsWith(online::get);
    t.lookup(new BlockCacheKey("f1", 0), true);
    t.lookup(new BlockCacheKey("f2", 0), true); // r2 not online yet: not counted
    online.put("r2", "ns_b");
    t.lookup(new BlockCacheKey("f2", 100), true); // asked again only after a second
    now[0] += TableStats.RETRY_NANOS;
    t.lookup(new BlockCacheKey("f2", 200), false);
    t.lookup(new BlockCacheKey("f2", 300), true);
    Map<String, Number> v = snapshot(t, Map.of("r1", 10L, "r2", 20L));
    assertEquals(1L, v.get("table_default_a_hitCount"));
    assertEquals(10L, v.get("table_default_a_cachedBytes"));
    assertEquals(2L, v.get("table_ns_b_requestCount"));
    assertEquals(1L, v.get("table_ns_b_hitCount"));
    assertEquals(20L, v.get("table_ns_b_cachedBytes"));
  }

  @Test
  void lookup_keysWithNeitherPathNorResolver_countForNoTable() {
    TableStats t = new TableStats(10, 100, k -> "r1", () -> 0L);
    t.lookup(new BlockCacheKey("f1", 0), true);
    Map<String, Number> v = snapshot(t, Map.of("r1", 10L));
    assertEquals(0L, v.get("tablesTracked"));
    assertEquals(0L, v.get("table__other_requestCount"));
    assertEquals(10L, v.get("table__other_cachedBytes"));
  }

  @Test
  void nameOf_isNamespaceUnderscoreQualifier() {
    assertEquals("ns_t1", TableStats.nameOf(org.apache.hadoop.hbase.TableName.valueOf("ns:t1")));
    assertEquals("default_t2", TableStats.nameOf(org.apache.hadoop.hbase.TableName.valueOf("t2")));
  }
}
