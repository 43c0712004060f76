/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import io.tiercache.core.metrics.MetricsOut;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.hbase.io.hfile.BlockCacheUtil;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The L2's own metrics ({@link BucketTierMetrics}): checkpoints, restore, size classes, the
 * engine's read timer.
 */
class BucketTierMetricsTest {
  private static final long MB = 1 << 20;

  @TempDir
  Path dir;

  private BucketTier open() {
    BucketTier t = BucketTier.builder().ioEngine("file:" + dir.resolve("c.cache"))
        .capacity(8 * MB).slabSize(MB).persistentPath(dir.resolve("index.ckpt").toString())
        .persistIntervalMs(3_600_000).build();
    assertTrue(t.waitForCacheInitialization(60_000));
    return t;
  }

  private static Map<String, Number> snapshot(BucketTier t) {
    MetricsOut.Recorder r = new MetricsOut.Recorder();
    new BucketTierMetrics(t).snapshot(r);
    return r.values();
  }

  @Test
  void checkpointMetrics_areUnsetUntilOneIsWritten_thenGiveItsBytesDurationAndAge()
      throws Exception {
    BucketTier t = open();
    try {
      assertEquals(-1L, snapshot(t).get("l2_checkpointAge"));
      assertEquals(-1L, snapshot(t).get("l2_checkpointBytes"));
      for (int i = 0; i < 10; i++) {
        t.cacheBlock(TestBlocks.key("f", i * 10_000L, BlockType.DATA),
            TestBlocks.heap("f", i * 10_000L, 8_000, BlockType.DATA), false, true);
      }
      assertTrue(t.checkpoint());
      Map<String, Number> v = snapshot(t);
      assertEquals(Files.size(dir.resolve("index.ckpt")), v.get("l2_checkpointBytes"));
      assertTrue(v.get("l2_checkpointDuration").longValue() >= 0, v.toString());
      assertTrue(v.get("l2_checkpointAge").longValue() >= 0, v.toString());
      assertEquals(0L, v.get("l2_checkpointFailuresInARow"));
      assertEquals(0L, v.get("l2_restoring"));
      assertTrue(v.get("l2_restoreDuration").longValue() >= 0);
      assertEquals(10L, v.get("l2_class_9216_usedSlots"), "8000-byte blocks in 9K slots");
      assertEquals(10L, v.get("l2_blockCount"));
      long held = (v.get("l2_slabs").longValue() - v.get("l2_freeSlabs").longValue()) * MB;
      assertEquals(held - v.get("l2_size").longValue(), v.get("l2_wasteBytes"));
      assertEquals(0L, v.get("l2_disabled"));
    } finally {
      t.shutdown();
    }
  }
  @Test
  void engineReadTimer_fileEngine_countsAndTimesEveryHitReadFromTheFile() throws Exception {
    BucketTier t = open();
    try {
      Map<String, Number> before = snapshot(t);
      assertEquals(0L, before.get("l2_engineReadCount"));
      assertEquals(0.0, before.get("l2_engineTimePerRead"));
      for (int i = 0; i < 5; i++) {
        t.cacheBlock(TestBlocks.key("f", i * 10_000L, BlockType.DATA),
            TestBlocks.heap("f", i * 10_000L, 8_000, BlockType.DATA), false, true);
      }
      assertTrue(t.flush(30_000)); // written: a hit now reads the file, not the write queue
      for (int i = 0; i < 5; i++) {
        Cacheable b = t.getBlock(TestBlocks.key("f", i * 10_000L, BlockType.DATA), true, false,
            true);
        assertTrue(b != null, "block " + i);
        b.release();
      }
      Map<String, Number> v = snapshot(t);
      assertEquals(5L, v.get("l2_engineReadCount"), v.toString());
      long micros = v.get("l2_engineReadTime").longValue();
      assertTrue(micros >= 0, v.toString());
      assertEquals(micros / 5.0, v.get("l2_engineTimePerRead").doubleValue(), 1.0, v.toString());
    } finally {
      t.shutdown();
    }
  }

  @Test
  void engineReadTimer_memoryEngine_timesNothing() {
    BucketTier t = BucketTier.builder().ioEngine("offheap").capacity(8 * MB).slabSize(MB).build();
    try {
      t.cacheBlock(TestBlocks.key("f", 0, BlockType.DATA),
          TestBlocks.heap("f", 0, 8_000, BlockType.DATA), false, true);
      assertTrue(t.flush(30_000));
      Cacheable b = t.getBlock(TestBlocks.key("f", 0, BlockType.DATA), true, false, true);
      assertTrue(b != null);
      b.release();
      Map<String, Number> v = snapshot(t);
      assertEquals(0L, v.get("l2_engineReadCount"), v.toString());
      assertEquals(-1.0, v.get("l2_engineTimePerRead"), v.toString());
    } finally {
      t.shutdown();
    }
  }
  /** The web UI's JSON view ({@code /rs-status?format=json&bcn=L2}), by HBase's own writer. */
  @Test
  void toJson_byHBasesWebUi_showsTheEngineSizesCountsAndStats() throws Exception {
    BucketTier t = open();
    try {
      for (int i = 0; i < 4; i++) {
        t.cacheBlock(TestBlocks.key("f", i * 10_000L, BlockType.DATA),
            TestBlocks.heap("f", i * 10_000L, 8_000, BlockType.DATA), false, true);
      }
      assertTrue(t.flush(30_000));
      t.getBlock(TestBlocks.key("f", 0, BlockType.DATA), true, false, true).release();
      String json = BlockCacheUtil.toJSON(t);
      JsonObject o = JsonParser.parseString(json).getAsJsonObject();
      assertEquals("BucketTier", o.get("implementation").getAsString(), json);
      assertEquals("file:" + dir.resolve("c.cache"), o.get("engine").getAsString(), json);
      assertEquals(4, o.get("blockCount").getAsLong(), json);
      assertEquals(8 * MB, o.get("maxSize").getAsLong(), json);
      assertEquals(t.getCurrentSize(), o.get("size").getAsLong(), json);
      assertEquals(1, o.get("hitCount").getAsLong(), json);
      assertEquals(1, o.get("engineReadCount").getAsLong(), json);
      assertEquals(4, o.get("class_9216_usedSlots").getAsLong(), json);
      assertTrue(o.has("wasteBytes") && o.has("checkpointAge") && o.has("writeQueueDepth"),
          json);
    } finally {
      t.shutdown();
    }
  }
}
