/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.persist.RestoreGate;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StorageStatistics;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.regionserver.DataTieringManager;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.StoreFileReader;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The HBase 2.6 features that talk to the block cache, each on a real in-process HBase with
 * TierCache installed (issue 12): prefetch on open with a persistent L2 across a graceful
 * RegionServer restart, prefetch stopping when the L2 is full, a split's daughters reading the
 * parent's cached blocks, time-based data tiering, and {@code Admin#updateConfiguration}.
 *
 * <p>One cluster serves every test (ZooKeeper, HDFS, an HMaster and one RegionServer started by
 * HBase's {@link LocalHBaseCluster} from {@code hbase.regionserver.impl}), configured only with
 * the keys an operator writes in {@code hbase-site.xml} ({@link #operatorKeys}, and
 * {@link #SITE_FILE} for the key changed online). The tests run in order and each prints its
 * measurements on a line starting with {@code [issue-12]}. Failsafe runs this class against the
 * modules and against the plugin jar, like {@link TieredMiniClusterIT}.
 *
 * <p>Sizes: 1 KB values; the L2 is a 16 MB {@code file:} engine (16 slabs of 1 MB), so the
 * 20 MB table of the "full" test does not fit, while the other tables (1–4 MB) do.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TieredHBaseFeaturesIT {
  private static final byte[] FAMILY = Bytes.toBytes("f");
  private static final byte[] QUALIFIER = Bytes.toBytes("q");
  private static final int VALUE_BYTES = 1000;
  private static final int L2_MB = 16;
  private static final int PREFETCH_ROWS = 4_000;
  private static final int FULL_ROWS = 20_000;
  private static final int SPLIT_ROWS = 3_000;
  private static final int TIERING_ROWS = 1_000;
  private static final long DAY_MS = TimeUnit.DAYS.toMillis(1);
  private static final long WAIT_MS = 120_000;
  private static final String SITE_FILE = "tiercache-online-site.xml";
  private static final int SLOW_PERSIST_MS = 600_000;
  private static final int FAST_PERSIST_MS = 500;

  private static final TableName PREFETCH = TableName.valueOf("it12_prefetch");
  private static final TableName FULL = TableName.valueOf("it12_full");
  private static final TableName SPLIT = TableName.valueOf("it12_split");
  private static final TableName TIERING = TableName.valueOf("it12_tiering");
  private static final TableName RESTORE = TableName.valueOf("it12_restore");
  private static final int RESTORE_ROWS = 3_000;
  private static final TableName MERGE = TableName.valueOf("it12_merge");
  private static final int MERGE_ROWS = 3_000;

  private static HBaseTestingUtility util;
  private static Configuration conf;
  private static LocalHBaseCluster cluster;
  private static Connection connection;
  private static Admin admin;
  private static File l2Dir;

  /** The hbase-site.xml an operator writes to use these HBase features with TierCache. */
  static void operatorKeys(Configuration c, File dir) {
    c.set("hbase.regionserver.impl", "io.tiercache.combined.TieredRegionServer");
    c.set("hbase.blockcache.class", "io.tiercache.combined.TieredBlockCache");
    c.set("hbase.bucketcache.combinedcache.enabled", "true");
    c.set("hbase.bucketcache.ioengine", "file:" + new File(dir, "l2.data").getPath());
    c.set("hbase.bucketcache.persistent.path", new File(dir, "l2.checkpoint").getPath());
    c.set("hbase.bucketcache.size", Integer.toString(L2_MB));
    c.set("hbase.bucketcache.writer.queuelength", "64");
    c.set("hbase.bucketcache.writer.threads", "3");
    // 1 MB slabs: a slab serves one size class, and a 16 MB L2 of 4 MB slabs would have four.
    c.set("tiercache.bucket.slab.size", "1m");
    c.set("hfile.block.cache.size", "0.1");
    c.setBoolean(CacheConfig.PREFETCH_BLOCKS_ON_OPEN_KEY, true);
    c.setBoolean("hbase.rs.evictblocksonclose", true);
    // A split keeps the parent's blocks for its daughters (HBASE-28596); compaction of the
    // daughters then evicts them.
    c.setBoolean(CacheConfig.EVICT_BLOCKS_ON_SPLIT_KEY, false);
    c.setBoolean(DataTieringManager.GLOBAL_DATA_TIERING_ENABLED_KEY, true);
  }

  @BeforeAll
  static void startCluster() throws Exception {
    util = new HBaseTestingUtility();
    conf = util.getConfiguration();
    l2Dir = new File(util.getDataTestDir("tiercache-l2").toUri().getPath());
    assertTrue(l2Dir.mkdirs() || l2Dir.isDirectory());
    operatorKeys(conf, l2Dir);
    // The key changed online lives in a site file, as on a real RegionServer: HBase's
    // updateConfiguration re-reads resources, and a key set in code would hide the file's.
    writeSiteFile(SLOW_PERSIST_MS);
    conf.addResource(new Path(siteFile().toURI()));
    conf.setBoolean(LocalHBaseCluster.ASSIGN_RANDOM_PORTS, true);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    cluster = MiniClusters.start(util, conf, WAIT_MS);
    connection = ConnectionFactory.createConnection(conf);
    admin = connection.getAdmin();
    assertEquals(SLOW_PERSIST_MS, rs().getConfiguration()
        .getInt("hbase.bucketcache.persist.intervalinmillis", -1), "read from " + SITE_FILE);
    TieredMiniClusterIT.checkClassesCameFromTheExpectedJar();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    MiniClusters.stop(new AutoCloseable[] {admin, connection}, cluster, util);
  }


  // ---------------------------------------------------------------------------------------------
  // 1. Prefetch with a persistent L2 across a graceful restart
  // ---------------------------------------------------------------------------------------------

  @Test
  @Order(1)
  void prefetch_afterGracefulRestart_readsNothingTheL2Restored() throws Exception {
    createTable(PREFETCH, null);
    long readBefore = hdfsBytesRead();
    load(PREFETCH, 0, PREFETCH_ROWS, System.currentTimeMillis());
    admin.flush(PREFETCH);
    HStoreFile file = onlyStoreFile(PREFETCH);
    String name = file.getPath().getName();
    waitFullyCached(name);
    long coldRead = hdfsBytesRead() - readBefore;
    long fileBytes = file.getReader().length();
    long dataBlocks = l2BlocksOf(name);
    String region = onlyRegion(PREFETCH).getRegionInfo().getEncodedName();
    long cachedBefore = regionCachedBytes(region);
    float ratioBefore = waitRegionCachedRatio(PREFETCH);
    print("prefetch cold: file %d bytes, %d data blocks in L2, prefetch read %d bytes from HDFS;"
        + " region cached %d bytes, ServerMetrics cached ratio %.3f", fileBytes, dataBlocks,
        coldRead, cachedBefore, ratioBefore);
    assertTrue(coldRead >= fileBytes / 2, "the cold prefetch read the file: " + coldRead);
    assertTrue(ratioBefore > 0);

    File checkpoint = new File(l2Dir, "l2.checkpoint");
    stopRegionServerGracefully();
    assertTrue(checkpoint.isFile(), "the graceful stop wrote the L2's checkpoint");
    long readStart = hdfsBytesRead();
    JVMClusterUtil.RegionServerThread started = cluster.addRegionServer();
    started.start();
    started.waitForServerOnline();
    waitRegionOnline(PREFETCH);
    waitFullyCached(name);
    long warmRead = hdfsBytesRead() - readStart;
    // Nothing has read the table since the start: its blocks in the L2 are the restored ones
    // (measured after prefetch, so an L2 that restores in the background has finished).
    long restoredBlocks = l2BlocksOf(name);
    assertEquals(file.getPath().getName(), onlyStoreFile(PREFETCH).getPath().getName());
    List<String> listed = admin.getCachedFilesList(rs().getServerName());
    long cachedAfter = regionCachedBytes(region);
    float ratioAfter = waitRegionCachedRatio(PREFETCH);
    print("prefetch warm restart: L2 restored %d blocks of the file (%d in all); HDFS bytes "
        + "read from RegionServer start to prefetch complete %d (cold: %d, %.1f%%); "
        + "getCachedFilesList %s; region cached %d bytes, ServerMetrics cached ratio %.3f",
        restoredBlocks, cache().l2().getBlockCount(), warmRead, coldRead,
        100.0 * warmRead / coldRead, listed, cachedAfter, ratioAfter);
    assertTrue(listed.contains(name), "getCachedFilesList lists " + name + ": " + listed);
    assertEquals(dataBlocks, restoredBlocks, "the file's blocks restored");
    // The restarted RegionServer also opens hbase:meta and reads every file's trailer and
    // load-on-open section; the prefetch itself reads no data block the L2 restored.
    assertTrue(warmRead < coldRead / 10, "warm " + warmRead + " vs cold " + coldRead);
    assertEquals(cachedBefore, cachedAfter, "region cached bytes across the restart");
    assertTrue(ratioAfter > 0);
    readRows(PREFETCH, 0, PREFETCH_ROWS);
    cache().checkInvariants();
  }

  // ---------------------------------------------------------------------------------------------
  // 2. Prefetch stops when the L2 is full; the hot set stays
  // ---------------------------------------------------------------------------------------------

  @Test
  @Order(2)
  void prefetch_whenTheL2IsFull_stopsAndKeepsTheHotSet() throws Exception {
    TieredBlockCache cache = cache();
    String hotFile = onlyStoreFile(PREFETCH).getPath().getName();
    for (int pass = 0; pass < 2; pass++) {
      readRows(PREFETCH, 0, PREFETCH_ROWS); // the hot set: every block hit twice
    }
    long hotBefore = l2BlocksOf(hotFile);
    long evictedBefore = cache.l2().getStats().getEvictedCount();
    String occupancyBefore = cache.l2().occupancy().toString();

    createTable(FULL, null);
    load(FULL, 0, FULL_ROWS, System.currentTimeMillis());
    admin.flush(FULL);
    HStoreFile big = onlyStoreFile(FULL);
    String bigName = big.getPath().getName();
    waitPrefetchDone(big);
    cache.l2().flush(30_000);
    long bigBlocks = l2BlocksOf(bigName);
    long hotAfter = l2BlocksOf(hotFile);
    long evicted = cache.l2().getStats().getEvictedCount() - evictedBefore;
    List<String> listed = admin.getCachedFilesList(rs().getServerName());
    print("prefetch full: L2 %d MB, before: %s; after: %s; file %d bytes, %d of its blocks "
        + "cached, prefetch stopped (listed as fully cached: %s); hot set %d blocks before, %d "
        + "after; L2 blocks evicted meanwhile %d", L2_MB, occupancyBefore,
        cache.l2().occupancy(), big.getReader().length(), bigBlocks,
        listed.contains(bigName), hotBefore, hotAfter, evicted);
    assertTrue(big.getReader().length() > (long) L2_MB << 20, "the table is bigger than the L2");
    assertTrue(bigBlocks > 0, "prefetch filled the free space");
    assertFalse(listed.contains(bigName), "a file prefetch stopped on is not fully cached");
    assertEquals(hotBefore, hotAfter, "the hot set is still cached");
    assertTrue(listed.contains(hotFile), listed.toString());

    admin.disableTable(FULL);
    admin.deleteTable(FULL);
    assertEquals(0, l2BlocksOf(bigName), "a dropped table's blocks leave the L2");
    cache.checkInvariants();
  }

  // ---------------------------------------------------------------------------------------------
  // 3. A split's daughters read the parent's blocks; their compaction evicts them
  // ---------------------------------------------------------------------------------------------

  @Test
  @Order(3)
  void split_daughtersHitTheParentsBlocks_untilCompactionClosesTheReferences() throws Exception {
    TieredBlockCache cache = cache();
    createTable(SPLIT, null);
    load(SPLIT, 0, SPLIT_ROWS, System.currentTimeMillis());
    admin.flush(SPLIT);
    HStoreFile parentFile = onlyStoreFile(SPLIT);
    String parent = parentFile.getPath().getName();
    waitFullyCached(parent);
    long parentBlocks = l2BlocksOf(parent);
    long parentBytes = parentFile.getReader().length();

    // A daughter with references asks for a compaction as soon as it opens; switched off here
    // so that the first reads below meet the references (and HDFS serves no compaction).
    List<String> server = List.of(rs().getServerName().getServerName());
    admin.compactionSwitch(false, server);
    admin.split(SPLIT, row(SPLIT_ROWS / 2));
    Waiter.waitFor(conf, WAIT_MS, () -> rs().getRegions(SPLIT).size() == 2
        && rs().getRegions(SPLIT).stream().allMatch(r -> r.isAvailable()
            && !storeFiles(r).isEmpty()));
    List<HStoreFile> references = new ArrayList<>();
    for (HRegion daughter : rs().getRegions(SPLIT)) {
      references.addAll(storeFiles(daughter));
    }
    for (HStoreFile ref : references) {
      assertTrue(ref.isReference(), ref.getPath().toString());
      waitPrefetchDone(ref);
    }
    // Hits of both tiers: in hot mode (the default) a parent block read twice before may be
    // served from its L1 copy. Data blocks miss in the L2 under HBase's accounting.
    long hits = cache.getStats().getHitCount();
    long misses = cache.l2().getStats().getMissCount();
    long read = hdfsBytesRead();
    readRows(SPLIT, 0, SPLIT_ROWS);
    long daughterHits = cache.getStats().getHitCount() - hits;
    long daughterMisses = cache.l2().getStats().getMissCount() - misses;
    long daughterRead = hdfsBytesRead() - read;
    long parentBlocksAfterSplit = l2BlocksOf(parent);
    print("split: parent file %d bytes, %d blocks in L2 (%d after the split); daughters' first "
        + "reads: %d cache hits, %d L2 misses, %d bytes read from HDFS", parentBytes, parentBlocks,
        parentBlocksAfterSplit, daughterHits, daughterMisses, daughterRead);
    assertEquals(parentBlocks, parentBlocksAfterSplit, "the split kept the parent's blocks");
    assertTrue(daughterHits >= parentBlocks, "every parent block served a daughter");
    assertEquals(0, daughterMisses, "no data block missed");
    assertTrue(daughterRead < parentBytes / 10, "bytes: " + daughterRead);

    admin.compactionSwitch(true, server);
    for (HRegion daughter : rs().getRegions(SPLIT)) {
      daughter.compact(true);
      for (HStore store : daughter.getStores()) {
        store.closeAndArchiveCompactedFiles();
      }
      assertTrue(storeFiles(daughter).stream().noneMatch(HStoreFile::isReference));
    }
    int left = cachedBlocksOf(cache, parent);
    print("split: after the daughters' compaction, %d blocks of the parent file are cached",
        left);
    assertEquals(0, left, "the references' close evicted the parent's blocks");
    readRows(SPLIT, 0, SPLIT_ROWS);
    cache.checkInvariants();
  }

  // ---------------------------------------------------------------------------------------------
  // 4. Time-based data tiering: cold files are not cached
  // ---------------------------------------------------------------------------------------------

  @Test
  @Order(4)
  void dataTiering_coldFileIsNotCached_hotFileIs() throws Exception {
    TieredBlockCache cache = cache();
    // HBase requires date-tiered compaction for time-range tiering (TableDescriptorChecker).
    createTable(TIERING, ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
        .setConfiguration("hbase.hstore.engine.class",
            "org.apache.hadoop.hbase.regionserver.DateTieredStoreEngine")
        .setConfiguration("hbase.hstore.datatiering.type", "TIME_RANGE")
        .setConfiguration("hbase.hstore.datatiering.hot.age.millis", Long.toString(DAY_MS)));
    long now = System.currentTimeMillis();
    load(TIERING, 0, TIERING_ROWS, now - 30 * DAY_MS);
    admin.flush(TIERING);
    HStoreFile cold = onlyStoreFile(TIERING);
    load(TIERING, TIERING_ROWS, 2 * TIERING_ROWS, now);
    admin.flush(TIERING);
    HStoreFile hot = storeFiles(onlyRegion(TIERING)).stream()
        .filter(f -> !f.getPath().equals(cold.getPath())).findFirst().orElseThrow();
    waitFullyCached(hot.getPath().getName());
    waitPrefetchDone(cold);
    readRows(TIERING, 0, 2 * TIERING_ROWS);
    cache.l2().flush(30_000);
    long coldBlocks = l2BlocksOf(cold.getPath().getName());
    long hotBlocks = l2BlocksOf(hot.getPath().getName());
    List<String> listed = admin.getCachedFilesList(rs().getServerName());
    print("data tiering (TIME_RANGE, hot age 1 day): cold file (newest cell 30 days old) %d "
        + "bytes, %d blocks in L2; hot file %d bytes, %d blocks in L2; listed: cold %s, hot %s",
        cold.getReader().length(), coldBlocks, hot.getReader().length(), hotBlocks,
        listed.contains(cold.getPath().getName()), listed.contains(hot.getPath().getName()));
    assertEquals(0, coldBlocks, "cold data blocks are neither prefetched nor cached on read");
    assertTrue(hotBlocks > 0);
    assertFalse(listed.contains(cold.getPath().getName()));
    cache.checkInvariants();
  }

  // ---------------------------------------------------------------------------------------------
  // 5. Admin#updateConfiguration reaches the L2
  // ---------------------------------------------------------------------------------------------

  @Test
  @Order(5)
  void updateConfiguration_fromTheSiteFile_changesTheL2sCheckpointInterval() throws Exception {
    TieredBlockCache cache = cache();
    java.nio.file.Path checkpoint = new File(l2Dir, "l2.checkpoint").toPath();
    Object before = checkpointVersion(checkpoint);
    // Change the L2's index; with the 10-minute interval of the site file no checkpoint follows.
    assertTrue(admin.clearBlockCache(PREFETCH).getEvictedBlocks() > 0);
    cache.l2().flush(30_000);
    assertEquals(before, checkpointVersion(checkpoint));

    writeSiteFile(FAST_PERSIST_MS);
    long start = System.nanoTime();
    admin.updateConfiguration(rs().getServerName());
    Waiter.waitFor(conf, 60_000, () -> !Objects.equals(before, checkpointVersion(checkpoint)));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    print("updateConfiguration: hbase.bucketcache.persist.intervalinmillis %d -> %d in %s; "
        + "the next checkpoint came %d ms after the call", SLOW_PERSIST_MS, FAST_PERSIST_MS,
        SITE_FILE, ms);
    assertEquals(FAST_PERSIST_MS,
        rs().getConfiguration().getInt("hbase.bucketcache.persist.intervalinmillis", -1));
    assertTrue(ms < 30_000, "the new interval applied at once: " + ms + " ms");
  }

  // ---------------------------------------------------------------------------------------------
  // 6. A RegionServer whose L2 is still restoring serves at once
  // ---------------------------------------------------------------------------------------------

  /**
   * Many small blocks (4 KB HFile blocks) in the persistent L2, a graceful restart, and the new
   * RegionServer's restore held at its start by {@link RestoreGate} (a test hook: the test's L2 is
   * too small for a restore that lasts on its own): the server comes online, opens the region and
   * serves reads from HDFS while the L2 reports itself enabled and not yet initialised; once the
   * gate opens the restore ends and the same reads are L2 hits on the restored blocks.
   */
  @Test
  @Order(6)
  void restart_whileTheL2Restores_servesReadsThenHitsTheRestoredBlocks() throws Exception {
    createTable(RESTORE, ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setBlocksize(4096));
    load(RESTORE, 0, RESTORE_ROWS, System.currentTimeMillis());
    admin.flush(RESTORE);
    String name = onlyStoreFile(RESTORE).getPath().getName();
    waitFullyCached(name);
    long fileBlocks = l2BlocksOf(name);
    long l2Blocks = cache().l2().getBlockCount();
    stopRegionServerGracefully();

    RestoreGate.hold();
    long start = System.nanoTime();
    long firstReadMs;
    long readsWhileRestoring;
    long blocksWhileRestoring;
    TieredBlockCache restarted;
    try {
      JVMClusterUtil.RegionServerThread started = cluster.addRegionServer();
      started.start();
      started.waitForServerOnline();
      waitRegionOnline(RESTORE);
      restarted = cache();
      Waiter.waitFor(conf, WAIT_MS, () -> RestoreGate.waiting() == 1);
      readRows(RESTORE, 0, 100);
      firstReadMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      readRows(RESTORE, 0, RESTORE_ROWS);
      readsWhileRestoring = RESTORE_ROWS + 100;
      blocksWhileRestoring = restarted.l2().getBlockCount();
      assertEquals(1, RestoreGate.waiting(), "the restore has not ended");
      assertTrue(restarted.isCacheEnabled(), "a restoring cache is enabled");
      assertTrue(restarted.l2().isCacheEnabled(), "a restoring L2 is enabled");
      assertFalse(restarted.waitForCacheInitialization(100), "still restoring");
      assertFalse(restarted.l2().waitForCacheInitialization(0), "still restoring");
      assertEquals(0, blocksWhileRestoring, "nothing restored or inserted while the gate holds");
    } finally {
      RestoreGate.release();
    }
    assertTrue(restarted.waitForCacheInitialization(WAIT_MS), "the restore ended");
    long restoreMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    long restored = l2BlocksOf(name);
    long hits = restarted.l2().getStats().getHitCount();
    long misses = restarted.l2().getStats().getMissCount();
    readRows(RESTORE, 0, RESTORE_ROWS);
    long l2Hits = restarted.l2().getStats().getHitCount() - hits;
    long l2Misses = restarted.l2().getStats().getMissCount() - misses;
    print("restore in the background: L2 held %d blocks (%d of the 4 KB-block file) at the stop; "
        + "after the restart the first read was served %d ms after the RegionServer's start, "
        + "%d rows read while restoring (L2 blocks then: %d, isCacheEnabled true, "
        + "waitForCacheInitialization false); the restore (held by the test, then run) ended "
        + "%d ms after the start with %d blocks of the file (%d in all); a full read then made %d "
        + "L2 hits and %d L2 misses", l2Blocks, fileBlocks, firstReadMs, readsWhileRestoring,
        blocksWhileRestoring, restoreMs, restored, restarted.l2().getBlockCount(), l2Hits,
        l2Misses);
    assertTrue(firstReadMs < restoreMs, "served before the restore ended");
    assertEquals(fileBlocks, restored, "every block of the file restored");
    assertTrue(l2Hits >= restored, "every restored block hit: " + l2Hits + " of " + restored);
    assertTrue(restarted.l2().flush(30_000), "queued writes settled");
    restarted.checkInvariants();
  }

  // ---------------------------------------------------------------------------------------------
  // 7. A merge: the merged region reads the parents' blocks until compaction
  // ---------------------------------------------------------------------------------------------

  /**
   * What HBase 2.6.4 does with the cache on a merge. It closes the parents as it closes a split's
   * parent (both are {@code TransitRegionStateProcedure.unassignSplitMerge}, which honours
   * {@code hbase.rs.evictblocksonsplit}), and the merged region opens with reference files to the
   * parents' HFiles; so as for a split, the merged region's first reads are L2 hits on the
   * parents' blocks. But compacting the merged region does not evict them: a merge's references
   * are "top" references split at the parent's start row, and {@code HalfStoreFileReader.close}
   * evicts only from the data block that holds its split key, found by {@code seekTo} of the
   * first key on that row, which sorts before every cell of the parent's file, so no block is
   * found and nothing is evicted (nor the reference's own name). The parents' blocks stay until
   * capacity evicts them, as with HBase's own BucketCache; this test fails if that changes.
   */
  @Test
  @Order(7)
  void merge_mergedRegionHitsTheParentsBlocks_andCompactionLeavesThem()
      throws Exception {
    // Room for the parents' prefetch whatever the earlier tests left: their tables are dropped
    // (a dropped table's blocks leave the L2, see test 2).
    for (TableName done : new TableName[] {SPLIT, TIERING, RESTORE}) {
      if (admin.tableExists(done)) {
        admin.disableTable(done);
        admin.deleteTable(done);
      }
    }
    TieredBlockCache cache = cache();
    admin.createTable(TableDescriptorBuilder.newBuilder(MERGE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build(),
        new byte[][] {row(MERGE_ROWS / 2)});
    Waiter.waitFor(conf, WAIT_MS, () -> rs().getRegions(MERGE).size() == 2
        && rs().getRegions(MERGE).stream().allMatch(HRegion::isAvailable));
    load(MERGE, 0, MERGE_ROWS, System.currentTimeMillis());
    admin.flush(MERGE);
    List<String> parents = new ArrayList<>();
    long parentBlocks = 0;
    long parentBytes = 0;
    for (HRegion r : rs().getRegions(MERGE)) {
      for (HStoreFile f : storeFiles(r)) {
        parents.add(f.getPath().getName());
        waitFullyCached(f.getPath().getName());
        parentBlocks += l2BlocksOf(f.getPath().getName());
        parentBytes += f.getReader().length();
      }
    }
    assertEquals(2, parents.size(), "one file per parent region: " + parents);

    List<String> server = List.of(rs().getServerName().getServerName());
    admin.compactionSwitch(false, server);
    List<HRegion> toMerge = rs().getRegions(MERGE);
    admin.mergeRegionsAsync(new byte[][] {toMerge.get(0).getRegionInfo().getRegionName(),
        toMerge.get(1).getRegionInfo().getRegionName()}, false).get(WAIT_MS,
        TimeUnit.MILLISECONDS);
    Waiter.waitFor(conf, WAIT_MS, () -> rs().getRegions(MERGE).size() == 1
        && rs().getRegions(MERGE).get(0).isAvailable()
        && !storeFiles(rs().getRegions(MERGE).get(0)).isEmpty());
    HRegion merged = rs().getRegions(MERGE).get(0);
    List<HStoreFile> references = storeFiles(merged);
    for (HStoreFile ref : references) {
      assertTrue(ref.isReference(), ref.getPath().toString());
      waitPrefetchDone(ref);
    }
    long parentBlocksAfterMerge = 0;
    for (String p : parents) {
      parentBlocksAfterMerge += l2BlocksOf(p);
    }
    long hits = cache.getStats().getHitCount(); // both tiers, as for the split above
    long misses = cache.l2().getStats().getMissCount();
    long read = hdfsBytesRead();
    readRows(MERGE, 0, MERGE_ROWS);
    long mergedHits = cache.getStats().getHitCount() - hits;
    long mergedMisses = cache.l2().getStats().getMissCount() - misses;
    long mergedRead = hdfsBytesRead() - read;
    print("merge: parent files %d bytes, %d blocks in L2 (%d after the merge); merged region's "
        + "%d references; its first full read: %d cache hits, %d L2 misses, %d bytes read from HDFS",
        parentBytes, parentBlocks, parentBlocksAfterMerge, references.size(), mergedHits,
        mergedMisses, mergedRead);
    assertEquals(parentBlocks, parentBlocksAfterMerge, "the merge kept the parents' blocks");
    assertTrue(mergedHits >= parentBlocks, "every parent block served the merged region");
    assertEquals(0, mergedMisses, "no data block missed");
    assertTrue(mergedRead < parentBytes / 10, "bytes: " + mergedRead);

    admin.compactionSwitch(true, server);
    merged.compact(true);
    for (HStore store : merged.getStores()) {
      store.closeAndArchiveCompactedFiles();
    }
    assertTrue(storeFiles(merged).stream().noneMatch(HStoreFile::isReference));
    long left = 0;
    int leftInBothTiers = 0;
    for (String p : parents) {
      left += l2BlocksOf(p);
      leftInBothTiers += cachedBlocksOf(cache, p);
    }
    print("merge: after the merged region's compaction, %d blocks of the parents' files are in "
        + "the L2 (%d in both tiers): HBase 2.6.4 evicts none on a merge", left,
        leftInBothTiers);
    assertEquals(parentBlocks, left, "HBase 2.6.4's HalfStoreFileReader.close finds no block to "
        + "evict from for a merge's reference");
    readRows(MERGE, 0, MERGE_ROWS);
    for (HStoreFile f : storeFiles(merged)) {
      waitPrefetchDone(f); // the compacted file's prefetch writes to the L2 meanwhile
    }
    assertTrue(cache.l2().flush(30_000), "queued writes settled before the invariant check");
    cache.checkInvariants();
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers
  // ---------------------------------------------------------------------------------------------

  private static void print(String format, Object... args) {
    System.out.println("[issue-12] " + String.format(format, args));
  }

  private static HRegionServer rs() {
    return cluster.getRegionServer(0);
  }

  private static TieredBlockCache cache() {
    BlockCache installed = rs().getBlockCache().orElseThrow();
    return assertInstanceOf(TieredBlockCache.class, installed);
  }

  private static File siteFile() {
    return new File(l2Dir.getParentFile(), SITE_FILE);
  }

  private static void writeSiteFile(int persistIntervalMs) throws Exception {
    String xml = "<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n"
        + "    <name>hbase.bucketcache.persist.intervalinmillis</name>\n"
        + "    <value>" + persistIntervalMs + "</value>\n  </property>\n</configuration>\n";
    Files.write(siteFile().toPath(), xml.getBytes(StandardCharsets.UTF_8));
  }

  /** Identity of the checkpoint file: a new checkpoint replaces it by a rename. */
  private static Object checkpointVersion(java.nio.file.Path p) throws Exception {
    BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
    return a.fileKey() + "@" + a.lastModifiedTime().toMillis() + "/" + a.size();
  }

  /** Bytes HDFS clients in this JVM read (the RegionServer's reads, plus the master's few). */
  private static long hdfsBytesRead() {
    StorageStatistics s = FileSystem.getGlobalStorageStatistics().get("hdfs");
    assertTrue(s != null, "HDFS statistics");
    Long n = s.getLong("bytesRead");
    return n == null ? 0 : n;
  }

  /** Stops the RegionServer gracefully (as {@code hbase-daemon.sh stop} does) and waits. */
  private static void stopRegionServerGracefully() {
    HRegionServer old = rs();
    old.stop("issue 12 test: graceful restart");
    cluster.waitOnRegionServer(0);
    assertTrue(cluster.getRegionServers().isEmpty());
  }

  private static void waitRegionOnline(TableName table) throws Exception {
    Waiter.waitFor(conf, WAIT_MS, () -> !cluster.getRegionServers().isEmpty()
        && rs().getRegions(table).size() == 1 && rs().getRegions(table).get(0).isAvailable());
  }

  private static void createTable(TableName name, ColumnFamilyDescriptorBuilder family)
      throws Exception {
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(family == null ? ColumnFamilyDescriptorBuilder.of(FAMILY)
            : family.build())
        .build());
    waitRegionOnline(name);
  }

  private static HRegion onlyRegion(TableName table) {
    List<HRegion> regions = rs().getRegions(table);
    assertEquals(1, regions.size(), table.toString());
    return regions.get(0);
  }

  private static List<HStoreFile> storeFiles(HRegion region) {
    List<HStoreFile> files = new ArrayList<>();
    for (HStore store : region.getStores()) {
      files.addAll(store.getStorefiles());
    }
    return files;
  }

  private static HStoreFile onlyStoreFile(TableName table) {
    List<HStoreFile> files = storeFiles(onlyRegion(table));
    assertEquals(1, files.size(), table + ": " + files);
    return files.get(0);
  }

  private static void waitFullyCached(String file) throws Exception {
    Waiter.waitFor(conf, WAIT_MS,
        () -> admin.getCachedFilesList(rs().getServerName()).contains(file));
  }

  private static void waitPrefetchDone(HStoreFile file) throws Exception {
    StoreFileReader reader = file.getReader();
    Waiter.waitFor(conf, WAIT_MS, () -> reader.getHFileReader().prefetchComplete());
  }

  private static long regionCachedBytes(String encodedRegion) {
    Map<String, Long> info = cache().getRegionCachedInfo().orElseThrow();
    return info.getOrDefault(encodedRegion, 0L);
  }

  /**
   * Waits until the master's {@code ServerMetrics} report the region cached ratio HBase derives
   * from the cache's own {@code getRegionCachedInfo} (cached MB over the region's HFile MB) and
   * returns it.
   */
  private static float waitRegionCachedRatio(TableName table) throws Exception {
    HRegion region = onlyRegion(table);
    byte[] regionName = region.getRegionInfo().getRegionName();
    String[] last = {"no report yet"};
    float[] reported = new float[1];
    Waiter.waitFor(conf, WAIT_MS, new Waiter.ExplainingPredicate<Exception>() {
      @Override
      public boolean evaluate() throws Exception {
        long hfileBytes = region.getStores().stream().mapToLong(HStore::getHFilesSize).sum();
        long cached = regionCachedBytes(region.getRegionInfo().getEncodedName());
        float expected = (float) roundMb(cached) / roundMb(hfileBytes);
        ServerMetrics sm = admin.getClusterMetrics().getLiveServerMetrics()
            .get(rs().getServerName());
        RegionMetrics rm = sm == null ? null : sm.getRegionMetrics().values().stream()
            .filter(m -> Bytes.equals(m.getRegionName(), regionName)).findFirst().orElse(null);
        last[0] = "cache: " + cached + " of " + hfileBytes + " bytes, expected ratio " + expected
            + "; reported " + (rm == null ? "no region metrics (server " + (sm != null) + ")"
                : rm.getCurrentRegionCachedRatio());
        if (rm == null) {
          return false;
        }
        reported[0] = rm.getCurrentRegionCachedRatio();
        return expected > 0 && reported[0] == expected;
      }

      @Override
      public String explainFailure() {
        return last[0];
      }
    });
    return reported[0];
  }

  /** HBase's rounding of sizes in region metrics ({@code HRegionServer#roundSize}). */
  private static int roundMb(long bytes) {
    return bytes == 0 ? 0 : bytes < (1 << 20) ? 1 : (int) (bytes >> 20);
  }

  private static long l2BlocksOf(String file) {
    long n = 0;
    for (Iterator<CachedBlock> it = cache().l2().iterator(); it.hasNext();) {
      if (file.equals(it.next().getFilename())) {
        n++;
      }
    }
    return n;
  }

  private static int cachedBlocksOf(BlockCache cache, String file) {
    int n = 0;
    for (Iterator<CachedBlock> it = cache.iterator(); it.hasNext();) {
      if (file.equals(it.next().getFilename())) {
        n++;
      }
    }
    return n;
  }

  private static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%022d", i));
  }

  private static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    new Random(20261124L * 31 + i).nextBytes(v);
    return v;
  }

  private static void load(TableName table, int from, int to, long timestamp) throws Exception {
    try (Table t = connection.getTable(table)) {
      List<Put> puts = new ArrayList<>();
      for (int i = from; i < to; i++) {
        puts.add(new Put(row(i)).addColumn(FAMILY, QUALIFIER, timestamp, value(i)));
        if (puts.size() == 1000) {
          t.put(puts);
          puts.clear();
        }
      }
      t.put(puts);
    }
  }

  private static void readRows(TableName table, int from, int to) throws Exception {
    int i = from;
    try (Table t = connection.getTable(table);
        ResultScanner scanner = t.getScanner(new Scan().withStartRow(row(from))
            .withStopRow(row(to)).setCaching(500))) {
      for (Result r : scanner) {
        assertArrayEquals(row(i), r.getRow());
        assertArrayEquals(value(i), r.getValue(FAMILY, QUALIFIER), "row " + i);
        i++;
      }
    }
    assertEquals(to, i, table.toString());
    assertNotEquals(from, to);
  }
}
