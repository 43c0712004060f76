/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static io.tiercache.core.contract.TestBlocks.assertBlock;
import static io.tiercache.core.contract.TestBlocks.heap;
import static io.tiercache.core.contract.TestBlocks.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.config.Sizes;
import io.tiercache.core.contract.BlockCacheContract;
import io.tiercache.core.tier.CacheTier;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheFactory;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockCacheUtil;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.InclusiveCombinedBlockCache;
import org.apache.hadoop.hbase.io.hfile.LruBlockCache;
import org.junit.jupiter.api.Test;

/**
 * The external-L2 route: HBase's own {@link BlockCacheFactory} builds {@link ExternalL2Cache} from
 * {@code hbase.blockcache.use.external} and wraps it under its LruBlockCache. The class also
 * passes the cache-core contract, since HBase uses it as a BlockCache on its own.
 */
class ExternalL2RouteTest extends BlockCacheContract {
  private static final int PAYLOAD = 16 * 1024;

  @Test
  void hbaseBuildsItAsTheL2UnderItsOwnL1() throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.setBoolean("hbase.blockcache.use.external", true);
    conf.set("hbase.blockcache.external.class", ExternalL2Cache.class.getName());
    conf.set("hbase.bucketcache.size", "16");
    conf.set("hfile.block.cache.size", "0.05");
    BlockCache built = BlockCacheFactory.createBlockCache(conf);
    InclusiveCombinedBlockCache combined = assertInstanceOf(InclusiveCombinedBlockCache.class,
        built);
    assertInstanceOf(LruBlockCache.class, combined.getFirstLevelCache());
    ExternalL2Cache l2 = assertInstanceOf(ExternalL2Cache.class,
        combined.getSecondLevelCache());
    try {
      BlockCacheKey k = key("f", 0, BlockType.DATA);
      combined.cacheBlock(k, heap("f", 0, PAYLOAD, BlockType.DATA), false);
      l2.tier().flush(30_000);
      assertEquals(1, l2.getBlockCount(), "inclusive: the L2 got the block too");
      combined.getFirstLevelCache().evictBlock(k);
      Cacheable b = combined.getBlock(k, true, false, true);
      assertBlock(k, PAYLOAD, BlockType.DATA, b);
      b.release();
      assertEquals(1, l2.getStats().getHitCount(), "an L1 miss was served by our L2");
      assertEquals(2, combined.evictBlocksByHfileName("f"),
          "the copy the L1 took back, and the L2's (inclusive)");
      // the web UI's JSON view of bcn=L2 writes this cache with HBase's own Gson
      String json = BlockCacheUtil.toJSON(l2);
      assertTrue(json.contains("\"implementation\": \"ExternalL2Cache\"")
          && json.contains("\"mode\": \"external\"") && json.contains("\"engine\": \"offheap\"")
          && json.contains("\"hitCount\": 1"), json);
    } finally {
      combined.shutdown();
      combined.shutdown();
    }
  }

  @Override
  protected CacheTier newTier(long capacityBytes) {
    return new ExternalL2Cache(validConfig(capacityBytes));
  }

  @Override
  protected Configuration validConfig(long capacityBytes) {
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.ioengine", "offheap");
    conf.set("hbase.bucketcache.size", Sizes.format(capacityBytes));
    conf.set("tiercache.bucket.slab.size", "1m");
    return conf;
  }

  @Override
  protected CacheTier newTier(Configuration conf) {
    return new ExternalL2Cache(conf);
  }

  @Override
  protected void settle(CacheTier tier) {
    if (!((ExternalL2Cache) tier).tier().flush(30_000)) {
      throw new AssertionError("writes did not settle in 30 s");
    }
  }

  @Override
  protected Map<String, String> invalidSettings() {
    Map<String, String> bad = new LinkedHashMap<>();
    bad.put("hbase.bucketcache.ioengine", "heap");
    bad.put("hbase.bucketcache.size", "0.5");
    bad.put("hbase.bucketcache.writer.threads", "0");
    return bad;
  }
}
