/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import org.apache.hadoop.hbase.io.hfile.BlockCacheUtil;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * The L1 in the RegionServer web UI's JSON view ({@code /rs-status?format=json&bcn=L1}), written
 * by HBase's own {@link BlockCacheUtil#toJSON(org.apache.hadoop.hbase.io.hfile.BlockCache)}.
 */
class LruTierJsonTest {
  @Test
  void toJson_byHBasesWebUi_showsTheTiersSizesCountsAndStats() throws Exception {
    LruTier t = LruTier.builder().maxSize(8L << 20).build();
    try {
      for (int i = 0; i < 3; i++) {
        t.cacheBlock(TestBlocks.key("f", i * 10_000L, BlockType.DATA),
            TestBlocks.heap("f", i * 10_000L, 4096, BlockType.DATA), false);
      }
      t.getBlock(TestBlocks.key("f", 0, BlockType.DATA), true, false, true).release();
      t.getBlock(TestBlocks.key("f", 1, BlockType.DATA), true, false, true); // a miss
      String json = BlockCacheUtil.toJSON(t);
      JsonObject o = JsonParser.parseString(json).getAsJsonObject();
      assertEquals("LruTier", o.get("implementation").getAsString(), json);
      assertEquals(3, o.get("blockCount").getAsLong(), json);
      assertEquals(8L << 20, o.get("maxSize").getAsLong(), json);
      assertEquals(t.getCurrentSize(), o.get("size").getAsLong(), json);
      assertEquals(1, o.get("hitCount").getAsLong(), json);
      assertEquals(1, o.get("missCount").getAsLong(), json);
      assertEquals(0.5, o.get("hitRatio").getAsDouble(), 1e-9, json);
      assertTrue(o.has("evictedCount") && o.has("heapSize"), json);
    } finally {
      t.shutdown();
    }
  }
}
