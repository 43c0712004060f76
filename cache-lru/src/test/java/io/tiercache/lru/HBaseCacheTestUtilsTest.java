/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import org.apache.hadoop.hbase.io.hfile.CacheTestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Holds the L1 to HBase's own block-cache tests: the {@code CacheTestUtils} checks that HBase
 * runs on its caches, from hbase-server's test jar. ({@code CacheTestUtils.testCacheSimple} is
 * left out: HBase runs it only on {@code BucketCache}, and it demands an exception on re-caching
 * an identical block that HBase's own L1 caches do not throw either.)
 */
class HBaseCacheTestUtilsTest {
  private static final int BLOCK = 16 * 1024;
  private LruTier tier;

  private LruTier tier(long maxSize) {
    tier = LruTier.builder().maxSize(maxSize).blockSizeHint(BLOCK).build();
    return tier;
  }

  @AfterEach
  void checkAndShutdown() {
    tier.checkInvariants();
    tier.shutdown();
  }

  @Test
  void hbaseCacheMultiThreaded_passes() throws Exception {
    CacheTestUtils.testCacheMultiThreaded(tier(1_000_000L), 80, 4, 20_000, 0.80);
  }

  @Test
  void hbaseHammerSingleKey_passes() throws Exception {
    CacheTestUtils.hammerSingleKey(tier(1_000_000L), 4, 10);
  }

  @Test
  void hbaseHeapSizeChanges_passes() {
    CacheTestUtils.testHeapSizeChanges(tier(10_000_000L), BLOCK);
  }

  @Test
  void hbaseConvertToJson_passes() throws Exception {
    LruTier t = tier(10_000_000L);
    CacheTestUtils.testHeapSizeChanges(t, BLOCK);
    CacheTestUtils.testConvertToJSON(t);
  }
}
