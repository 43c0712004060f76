/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.core.config.Sizes;
import io.tiercache.core.contract.BlockCacheContract;
import io.tiercache.core.tier.CacheTier;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache-core contract on the L2, once per engine. Slabs are 1 MB so that small test caches
 * still have several slabs for rebalancing to work with.
 */
abstract class BucketTierContract extends BlockCacheContract {
  @TempDir
  Path dir;

  /** The engine spec under test, e.g. {@code offheap} or {@code file:...}. */
  abstract String engine();

  @Override
  protected CacheTier newTier(long capacityBytes) {
    return BucketTier.builder().ioEngine(engine()).capacity(capacityBytes).slabSize(1 << 20)
        .writers(2, 8).build();
  }

  @Override
  protected Configuration validConfig(long capacityBytes) {
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.ioengine", engine());
    conf.set("hbase.bucketcache.size", Sizes.format(capacityBytes));
    conf.set("tiercache.bucket.slab.size", "1m");
    return conf;
  }

  @Override
  protected CacheTier newTier(Configuration conf) {
    return new BucketTier(conf);
  }

  @Override
  protected void settle(CacheTier tier) {
    if (!((BucketTier) tier).flush(30_000)) {
      throw new AssertionError("writes did not settle in 30 s");
    }
  }

  @Override
  protected Map<String, String> invalidSettings() {
    Map<String, String> bad = new LinkedHashMap<>();
    bad.put("hbase.bucketcache.ioengine", "heap");
    bad.put("hbase.bucketcache.size", "0.5");
    bad.put("hbase.bucketcache.bucket.sizes", "5000,8192");
    bad.put("hbase.bucketcache.writer.threads", "0");
    bad.put("hbase.bucketcache.writer.queuelength", "-1");
    bad.put("tiercache.bucket.slab.size", "4100000"); // not whole 4 KB pages
    bad.put("hbase.bucketcache.ioengine.errors.tolerated.duration", "-5");
    return bad;
  }
}
