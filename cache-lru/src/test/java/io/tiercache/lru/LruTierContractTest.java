/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import io.tiercache.core.contract.BlockCacheContract;
import io.tiercache.core.tier.CacheTier;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/** Runs the cache-core contract suite on the on-heap L1. */
class LruTierContractTest extends BlockCacheContract {
  @Override
  protected CacheTier newTier(long capacityBytes) {
    return LruTier.builder().maxSize(capacityBytes).build();
  }

  @Override
  protected Configuration validConfig(long capacityBytes) {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.memory.size", Long.toString(capacityBytes));
    return conf;
  }

  @Override
  protected CacheTier newTier(Configuration conf) {
    return new LruTier(conf);
  }

  @Override
  protected Map<String, String> invalidSettings() {
    Map<String, String> bad = new LinkedHashMap<>();
    bad.put("hfile.block.cache.memory.size", "lots");
    bad.put("hfile.block.cache.size", "1.5");
    bad.put("hbase.lru.blockcache.single.percentage", "0.5");
    bad.put("hbase.lru.blockcache.multi.percentage", "-0.1");
    bad.put("hbase.lru.blockcache.memory.percentage", "abc");
    bad.put("hbase.lru.max.block.size", "0");
    bad.put("hbase.lru.rs.inmemoryforcemode", "yes");
    bad.put("tiercache.lru.window.percentage", "0.3");
    bad.put("hbase.blockcache.minblocksize", "1");
    return bad;
  }
}
