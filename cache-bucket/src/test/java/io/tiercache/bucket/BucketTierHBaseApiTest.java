/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.util.Pair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HBase 2.6 {@code BlockCache} methods beyond the core contract (issue 12), answered as
 * HBase's BucketCache answers them, on every built-in engine: the size prefetch skips by, the
 * "cache full" signal that stops prefetch, fully cached files, cached bytes per region, range
 * eviction, and a split daughter's reference reading its parent's blocks.
 */
class BucketTierHBaseApiTest {
  private static final int KB = 1024;
  private static final int MB = 1 << 20;
  private static final String REGION = "0123456789abcdef0123456789abcdef";
  private static final String FILE = "f0e1d2c3b4a59687";

  @TempDir
  Path dir;

  private BucketTier tier(String engine, long capacity) {
    String spec = engine.equals("offheap") ? "offheap" : engine + ":" + dir.resolve("cache.bin");
    return BucketTier.builder().ioEngine(spec).capacity(capacity).slabSize(MB).build();
  }

  /** A key as HBase's HFile reader makes it: with the file's path, so the region is known. */
  private static BlockCacheKey pathKey(String file, long offset) {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(
        "/hbase/data/default/t/" + REGION + "/cf/" + file);
    return new BlockCacheKey(path, offset, true, BlockType.DATA);
  }

  private static HFileBlock put(BucketTier t, BlockCacheKey key, int payload) {
    HFileBlock b = TestBlocks.heap(key.getHfileName(), key.getOffset(), payload, BlockType.DATA);
    t.cacheBlock(key, b, false, true);
    return b;
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file", "mmap"})
  void getBlockSize_isTheOnDiskSizeWithHeader_emptyWhenAbsent(String engine) {
    BucketTier t = tier(engine, 8L * MB);
    for (int i = 0; i < 4; i++) {
      BlockCacheKey key = pathKey(FILE, i * 100_000L);
      HFileBlock b = put(t, key, 10 * KB + i * 997);
      assertEquals(Optional.of(b.getOnDiskSizeWithHeader()), t.getBlockSize(key), engine);
      b.release();
    }
    assertEquals(Optional.empty(), t.getBlockSize(pathKey(FILE, 7)));
    t.checkInvariants();
    t.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file", "mmap"})
  void referenceKey_readsTheParentsBlock(String engine) {
    BucketTier t = tier(engine, 8L * MB);
    BlockCacheKey parent = pathKey(FILE, 65_536);
    HFileBlock b = put(t, parent, 20 * KB);
    BlockCacheKey reference = new BlockCacheKey(FILE + "." + REGION, 65_536);
    assertEquals(Optional.of(true), t.isAlreadyCached(reference));
    assertEquals(Optional.of(b.getOnDiskSizeWithHeader()), t.getBlockSize(reference));
    Cacheable got = t.getBlock(reference, true, false, true);
    assertNotNull(got, "a daughter's reference reads the parent's cached block");
    TestBlocks.assertBlock(parent, 20 * KB, BlockType.DATA, got);
    got.release();
    assertEquals(Optional.of(false), t.isAlreadyCached(new BlockCacheKey(FILE + "." + REGION, 1)));
    b.release();
    t.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file"})
  void blockFitsIntoTheCache_falseOnceNoFreeSpaceIsLeft(String engine) {
    BucketTier t = tier(engine, 2L * MB);
    HFileBlock probe = TestBlocks.heap("p", 0, 60 * KB, BlockType.DATA);
    assertEquals(Optional.of(true), t.blockFitsIntoTheCache(probe));
    int i = 0;
    while (t.blockFitsIntoTheCache(probe).get() && i < 1000) {
      put(t, pathKey(FILE, i++ * 100_000L), 60 * KB).release();
    }
    assertTrue(i > 0 && i < 1000, "filled after " + i + " blocks");
    assertEquals(0, t.occupancy().freeSlabs());
    HFileBlock huge = TestBlocks.heap("h", 0, 600 * KB, BlockType.DATA);
    assertEquals(Optional.of(false), t.blockFitsIntoTheCache(huge), "over the largest bucket");
    probe.release();
    huge.release();
    t.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file", "mmap"})
  void fullyCachedFiles_andRegionBytes_followTheCache(String engine) {
    BucketTier t = tier(engine, 8L * MB);
    long bytes = 0;
    for (int i = 0; i < 5; i++) {
      HFileBlock b = put(t, pathKey(FILE, i * 100_000L), 10 * KB);
      bytes += b.getSerializedLength();
      b.release();
    }
    assertEquals(Map.of(REGION, bytes), t.getRegionCachedInfo().get());
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(
        "/hbase/data/default/t/" + REGION + "/cf/" + FILE);

    t.notifyFileCachingCompleted(path, 6, 6, 123_456L); // one data block short: not complete
    assertTrue(t.getFullyCachedFiles().get().isEmpty());

    t.notifyFileCachingCompleted(path, 5, 5, 123_456L);
    Map<String, Pair<String, Long>> files = t.getFullyCachedFiles().get();
    assertEquals(1, files.size());
    assertEquals(REGION, files.get(FILE).getFirst());
    assertEquals(123_456L, files.get(FILE).getSecond());

    assertTrue(t.evictBlock(pathKey(FILE, 0)));
    assertTrue(t.getFullyCachedFiles().get().isEmpty(), "a file missing a block is not complete");
    assertTrue(t.getRegionCachedInfo().get().get(REGION) < bytes);

    assertEquals(4, t.evictBlocksByHfileName(FILE));
    assertFalse(t.getRegionCachedInfo().get().containsKey(REGION));
    t.checkInvariants();
    t.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file"})
  void evictBlocksRangeByHfileName_evictsOnlyTheRange(String engine) {
    BucketTier t = tier(engine, 8L * MB);
    for (int i = 0; i < 10; i++) {
      put(t, pathKey(FILE, i * 1000L), 5 * KB).release();
    }
    assertEquals(4, t.evictBlocksRangeByHfileName(FILE, 3000, 6000));
    for (int i = 0; i < 10; i++) {
      assertEquals(Optional.of(i < 3 || i > 6), t.isAlreadyCached(pathKey(FILE, i * 1000L)),
          "block " + i);
    }
    t.checkInvariants();
    t.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file"})
  void keepFilesOnClose_keepsAPersistentL2sBlocks_only(String engine) {
    boolean persistent = !engine.equals("offheap");
    BucketTierBuilder b = BucketTier.builder().capacity(8L * MB).slabSize(MB);
    if (persistent) {
      b.ioEngine("file:" + dir.resolve("c.bin")).persistentPath(dir.resolve("c.idx").toString());
    }
    BucketTier t = b.build();
    put(t, pathKey(FILE, 0), 5 * KB).release();
    assertEquals(persistent, t.isPersistent());
    assertEquals(persistent, t.keepFilesOnClose());
    assertEquals(persistent ? 0 : 1, t.evictBlocksByHfileName(FILE));
    assertEquals(Optional.of(persistent), t.isAlreadyCached(pathKey(FILE, 0)));
    assertTrue(t.evictBlock(pathKey(FILE, 0)) == persistent, "single evictions still work");
    t.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void regionBytes_surviveAWarmRestart(String engine) {
    BucketTierBuilder b = BucketTier.builder().ioEngine(engine + ":" + dir.resolve("c.bin"))
        .capacity(8L * MB).slabSize(MB).persistentPath(dir.resolve("c.idx").toString());
    BucketTier t = b.build();
    long bytes = 0;
    for (int i = 0; i < 4; i++) {
      HFileBlock blk = put(t, pathKey(FILE, i * 100_000L), 10 * KB);
      bytes += blk.getSerializedLength();
      blk.release();
    }
    t.shutdown();
    BucketTier again = b.build();
    assertTrue(again.waitForCacheInitialization(60_000));
    assertEquals(Map.of(REGION, bytes), again.getRegionCachedInfo().get(),
        "the cache-aware balancer needs the regions right after a restart");
    again.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file"})
  void coldFiles_areEvictedFirst_whenRoomIsShort(String engine) {
    BucketTier t = tier(engine, 2L * MB);
    String cold = "c0ffee00";
    String hot = "a0a0a0a0";
    int i = 0;
    while (t.occupancy().freeSlabs() > 0 || t.blockFitsIntoTheCache(
        TestBlocks.heap("p", 0, 60 * KB, BlockType.DATA)).get()) {
      String file = i % 2 == 0 ? cold : hot;
      put(t, pathKey(file, i++ * 100_000L), 60 * KB).release();
      assertTrue(i < 1000, "the cache never filled");
    }
    long coldBlocks = (i + 1) / 2;
    t.coldFilesSource(() -> java.util.Set.of(cold));
    put(t, pathKey(hot, 999_000_000L), 60 * KB).release(); // needs room: the sweep runs first
    assertEquals(coldBlocks, t.coldFileEvictions(), "every cold block went first");
    for (int j = 1; j < i; j += 2) {
      assertEquals(Optional.of(true), t.isAlreadyCached(pathKey(hot, j * 100_000L)),
          "hot block " + j + " kept");
    }
    t.checkInvariants();
    t.shutdown();
  }

  /**
   * A file whose blocks were cached by keys without a path has no region in the checkpoint (or
   * in a pmem pool, which keeps none): after a warm restart its region is learnt from prefetch's
   * completion, which names the path (issue 12: the region cached ratio after a restart).
   */
  @Test
  void regionBytes_afterARestore_comeBackWhenPrefetchCompletesTheFile() {
    BucketTierBuilder b = BucketTier.builder().capacity(8L * MB).slabSize(MB)
        .ioEngine("file:" + dir.resolve("c.bin")).persistentPath(dir.resolve("c.idx").toString());
    BucketTier t = b.build();
    long bytes = 0;
    for (int i = 0; i < 3; i++) {
      HFileBlock blk = put(t, new BlockCacheKey(FILE, i * 100_000L), 10 * KB);
      bytes += blk.getSerializedLength();
      blk.release();
    }
    assertTrue(t.getRegionCachedInfo().get().isEmpty(), "no key named a path");
    t.shutdown();

    BucketTier warm = b.build();
    assertTrue(warm.waitForCacheInitialization(60_000));
    assertEquals(3, warm.getBlockCount(), "restored");
    assertTrue(warm.getRegionCachedInfo().get().isEmpty(), "the checkpoint knew no region");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(
        "/hbase/data/default/t/" + REGION + "/cf/" + FILE);
    warm.notifyFileCachingCompleted(path, 3, 3, 300_000L);
    assertEquals(Map.of(REGION, bytes), warm.getRegionCachedInfo().get());
    assertEquals(Set.of(FILE), warm.getFullyCachedFiles().get().keySet());
    warm.checkInvariants();
    warm.shutdown();
  }
}
