/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.config.SettingException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A bad {@code hbase.blockcache.class} stops {@link TieredRegionServer} with a message naming the
 * key, before HBase's constructor starts anything (so no cluster is needed here).
 */
class TieredRegionServerTest {
  /** A BlockCache that cannot be built from a Configuration. */
  public static final class NoConfigConstructor
      extends org.apache.hadoop.hbase.io.hfile.LruBlockCache {
    public NoConfigConstructor() {
      super(1 << 20, 64 * 1024);
    }
  }

  @ParameterizedTest
  @CsvSource({
      "com.example.NoSuchCache, was not found on the RegionServer's classpath",
      "java.lang.String, is not an org.apache.hadoop.hbase.io.hfile.BlockCache",
      "io.tiercache.bucket.BucketTier, is neither a ResizableBlockCache nor a CombinedBlockCache",
      "io.tiercache.combined.TieredRegionServerTest$NoConfigConstructor, has no public "
          + "constructor taking a Configuration",
  })
  void badCacheClassStopsTheRegionServerWithAClearMessage(String cacheClass, String expected) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.blockcache.class", cacheClass);
    SettingException e = assertThrows(SettingException.class,
        () -> new TieredRegionServer(conf));
    assertEquals("hbase.blockcache.class", e.key());
    assertTrue(e.getMessage().contains("'" + cacheClass + "' " + expected), e.getMessage());
  }

  @Test
  void aCacheThatCannotBeBuiltStopsTheRegionServerWithItsOwnSettingError() {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.bucketcache.ioengine", "offheap");
    // hbase.bucketcache.size is missing: TieredBlockCache has no L2 to build.
    SettingException e = assertThrows(SettingException.class,
        () -> new TieredRegionServer(conf));
    assertEquals("hbase.bucketcache.size", e.key());
  }
}
