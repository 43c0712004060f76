/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.tier.CacheTier;
import io.tiercache.lru.LruTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CacheTestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HBase's own block-cache checks ({@code CacheTestUtils}, from hbase-server's test jar) on every
 * TierCache tier, L2 engine and combined mode: multi-threaded cache/get/evict, a hammered
 * single key, heap size that grows on a cache and returns on an eviction, and the web UI's JSON.
 * ({@code testCacheSimple} is left out: for any cache but HBase's own {@code BucketCache} class it
 * demands that re-caching a block throws, and nothing may be thrown out of a TierCache
 * {@code BlockCache} method.) Each check runs
 * {@code -Dtiercache.cachetestutils.runs=N} times in a row on a fresh cache (1 by default; the
 * issue's "ten runs in a row" is {@code -Dtiercache.cachetestutils.runs=10}).
 */
class HBaseCacheTestUtilsTest {
  private static final int RUNS = Integer.getInteger("tiercache.cachetestutils.runs", 1);
  private static final int BLOCK = 16 * 1024;
  private static final long L1 = 8L << 20;
  private static final long L2 = 16L << 20;

  @TempDir
  Path dir;

  private final List<BlockCache> opened = new ArrayList<>();

  @AfterEach
  void shutdown() {
    for (BlockCache c : opened) { // invariants hold once queued writes have settled
      if (c instanceof BucketTier) {
        ((BucketTier) c).flush(30_000);
      } else if (c instanceof TieredBlockCache) {
        ((TieredBlockCache) c).l2().flush(30_000);
      }
      if (c instanceof CacheTier) {
        ((CacheTier) c).checkInvariants();
      } else if (c instanceof TieredBlockCache) {
        ((TieredBlockCache) c).checkInvariants();
      }
      c.shutdown();
    }
  }

  private BlockCache open(String subject, int run) throws Exception {
    Path d = Files.createDirectories(dir.resolve(subject + "-" + run));
    BlockCache c;
    switch (subject) {
      case "l1":
        c = LruTier.builder().maxSize(L1).blockSizeHint(BLOCK).build();
        break;
      case "hbase":
      case "hot":
      case "exclusive":
      case "inclusive":
        c = new TieredBlockCache(LruTier.builder().maxSize(L1).blockSizeHint(BLOCK).build(),
            l2("offheap", d), TieringMode.valueOf(subject.toUpperCase(java.util.Locale.ROOT)), 2);
        break;
      default:
        c = l2(subject, d);
    }
    opened.add(c);
    return c;
  }

  private static BucketTier l2(String engine, Path d) {
    String spec;
    switch (engine) {
      case "offheap":
        spec = "offheap";
        break;
      case "files":
        spec = "files:" + d.resolve("a.cache") + "," + d.resolve("b.cache");
        break;
      case "pmem":
        spec = "pmem:" + d.resolve("pool.pmem");
        break;
      default:
        spec = engine + ":" + d.resolve("c.cache");
    }
    return BucketTier.builder().ioEngine(spec).capacity(L2).slabSize(1 << 20).writers(2, 16)
        .build();
  }

  @ParameterizedTest
  @ValueSource(strings = {"l1", "offheap", "file", "files", "mmap", "pmem", "hbase",
      "hot", "exclusive", "inclusive"})
  void hbaseCacheMultiThreaded_passes(String subject) throws Exception {
    for (int run = 0; run < RUNS; run++) {
      CacheTestUtils.testCacheMultiThreaded(open(subject, run), 80, 4, 20_000, 0.80);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"l1", "offheap", "file", "files", "mmap", "pmem", "hbase",
      "hot", "exclusive", "inclusive"})
  void hbaseHammerSingleKey_passes(String subject) throws Exception {
    for (int run = 0; run < RUNS; run++) {
      CacheTestUtils.hammerSingleKey(open(subject, run), 4, 10);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"l1", "offheap", "file", "files", "mmap", "pmem", "hbase",
      "hot", "exclusive", "inclusive"})
  void hbaseHeapSizeChanges_andJson_pass(String subject) throws Exception {
    for (int run = 0; run < RUNS; run++) {
      BlockCache c = open(subject, run);
      CacheTestUtils.testHeapSizeChanges(c, BLOCK);
      CacheTestUtils.testConvertToJSON(c);
    }
  }
}
