/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.config.Sizes;
import io.tiercache.core.contract.BlockCacheContract;
import io.tiercache.core.tier.CacheTier;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;

/**
 * The cache-core contract on the L2 over a {@code pmem:} engine, once per back end, each tier on
 * its own pool file on tmpfs. Slabs are 1 MB as in cache-bucket's contract tests.
 */
abstract class PmemContract extends BlockCacheContract {
  private final PoolDir pools = new PoolDir();
  private final AtomicInteger next = new AtomicInteger();

  /** The back end under test. */
  abstract String backend();

  private String engine() {
    NativeLibraries.assumeBackend(backend());
    return "pmem:" + pools.resolve("pool-" + next.incrementAndGet());
  }

  @AfterEach
  void removePools() {
    pools.close();
  }

  @Override
  protected CacheTier newTier(long capacityBytes) {
    return BucketTier.builder().ioEngine(engine()).pmemBackend(backend())
        .capacity(capacityBytes).slabSize(1 << 20).writers(2, 8).build();
  }

  @Override
  protected Configuration validConfig(long capacityBytes) {
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.ioengine", engine());
    conf.set("hbase.bucketcache.size", Sizes.format(capacityBytes));
    conf.set("tiercache.bucket.slab.size", "1m");
    conf.set("tiercache.pmem.backend", backend());
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
    bad.put("tiercache.pmem.backend", "nvdimm");
    bad.put("hbase.bucketcache.bucket.sizes", "5000,8192");
    bad.put("tiercache.bucket.slab.size", "4100000"); // not whole 4 KB pages
    return bad;
  }
}
