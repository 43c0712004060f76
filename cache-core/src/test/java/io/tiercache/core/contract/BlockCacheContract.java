/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tiercache.core.config.SettingException;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every TierCache tier and engine passes: subclass it, say how to build the tier,
 * and the tier runs HBase's expectations of a block cache on real {@link HFileBlock}s.
 *
 * <p>After every test the suite checks the tier's invariants, then shuts it down twice (HBase
 * does). Random workloads use fixed seeds ({@code -Dtiercache.test.seed=N} to vary) and print the
 * seed on failure.
 *
 * <p>Blocks are cached with {@code waitWhenCache=true}, and a tier with asynchronous writes may
 * override {@link #settle} to wait until queued writes are applied before sizes are compared.
 * A block still queued must already be a hit.
 */
public abstract class BlockCacheContract {
  /** Seed for the random workloads; printed on failure. */
  protected static final long SEED = Long.getLong("tiercache.test.seed", 20261121L);
  private static final int KB = 1024;

  private final List<CacheTier> created = new ArrayList<>();

  /** Builds the tier under test with room for at least {@code capacityBytes} of blocks. */
  protected abstract CacheTier newTier(long capacityBytes);

  /** A configuration that builds the tier with the given capacity through its public constructor. */
  protected abstract Configuration validConfig(long capacityBytes);

  /** Builds the tier through its public {@code (Configuration)} constructor. */
  protected abstract CacheTier newTier(Configuration conf);

  /** Settings the tier must reject at startup: key to an invalid value, each tried alone. */
  protected abstract Map<String, String> invalidSettings();

  /** Waits until writes the tier accepted are applied; no-op for synchronous tiers. */
  protected void settle(CacheTier tier) {}

  private CacheTier tier(long capacityBytes) {
    CacheTier t = newTier(capacityBytes);
    created.add(t);
    return t;
  }

  @AfterEach
  void checkInvariantsThenShutDownTwice() {
    for (CacheTier t : created) {
      settle(t);
      t.checkInvariants();
      t.shutdown();
      t.shutdown();
      assertEquals(0, t.getBlockCount(), "blocks left after shutdown in " + t.name());
    }
    created.clear();
  }

  private static void put(CacheTier t, String file, long offset, int size, BlockType type) {
    HFileBlock b = TestBlocks.heap(file, offset, size, type);
    t.cacheBlock(TestBlocks.key(file, offset, type), b, false, true);
    b.release();
  }

  private static void assertHit(CacheTier t, String file, long offset, int size,
      BlockType type) {
    BlockCacheKey key = TestBlocks.key(file, offset, type);
    Cacheable got = t.getBlock(key, true, false, true);
    try {
      TestBlocks.assertBlock(key, size, type, got);
    } finally {
      if (got != null) {
        got.release();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void cacheBlock_thenGetBlock_returnsIdenticalBytes() {
    CacheTier t = tier(64L * 1024 * KB);
    int[] sizes = {1 * KB, 4 * KB + 17, 64 * KB, 200 * KB};
    BlockType[] types = {BlockType.DATA, BlockType.LEAF_INDEX, BlockType.BLOOM_CHUNK};
    long offset = 0;
    for (int size : sizes) {
      for (BlockType type : types) {
        put(t, "f-roundtrip", offset, size, type);
        assertHit(t, "f-roundtrip", offset, size, type);
        offset += size + TestBlocks.HEADER;
      }
    }
  }

  @Test
  void getBlock_absentKey_returnsNullAndCountsMiss() {
    CacheTier t = tier(8L * 1024 * KB);
    TierStats stats = t.getStats();
    long misses = stats.getMissCount();
    assertNull(t.getBlock(TestBlocks.key("f-absent", 0, BlockType.DATA), true, false, true));
    assertEquals(misses + 1, stats.getMissCount());
  }

  @Test
  void getBlock_hitWithMetrics_countsHitAndNoMiss() {
    CacheTier t = tier(8L * 1024 * KB);
    put(t, "f-hit", 0, 8 * KB, BlockType.DATA);
    long hits = t.getStats().getHitCount();
    long misses = t.getStats().getMissCount();
    assertHit(t, "f-hit", 0, 8 * KB, BlockType.DATA);
    assertEquals(hits + 1, t.getStats().getHitCount());
    assertEquals(misses, t.getStats().getMissCount());
  }

  @Test
  void getBlock_withoutMetricsOrRepeat_leavesStatsUnchanged() {
    CacheTier t = tier(8L * 1024 * KB);
    put(t, "f-quiet", 0, 8 * KB, BlockType.DATA);
    long requests = t.getStats().getRequestCount();
    Cacheable b = t.getBlock(TestBlocks.key("f-quiet", 0, BlockType.DATA), true, false, false);
    b.release();
    assertNull(t.getBlock(TestBlocks.key("f-quiet", 999, BlockType.DATA), true, true, true));
    assertEquals(requests, t.getStats().getRequestCount());
  }

  @Test
  void cacheBlock_sameKeyTwice_keepsOneBlock() {
    CacheTier t = tier(8L * 1024 * KB);
    put(t, "f-twice", 0, 16 * KB, BlockType.DATA);
    put(t, "f-twice", 0, 16 * KB, BlockType.DATA);
    settle(t);
    assertEquals(1, t.getBlockCount());
    assertHit(t, "f-twice", 0, 16 * KB, BlockType.DATA);
  }

  @Test
  void evictBlock_cachedKey_removesItOnce() {
    CacheTier t = tier(8L * 1024 * KB);
    put(t, "f-evict", 0, 8 * KB, BlockType.DATA);
    BlockCacheKey key = TestBlocks.key("f-evict", 0, BlockType.DATA);
    assertTrue(t.evictBlock(key));
    assertFalse(t.evictBlock(key), "second eviction of the same key");
    assertNull(t.getBlock(key, true, false, true));
    settle(t);
    assertEquals(0, t.getBlockCount());
  }

  @Test
  void evictBlocksByHfileName_evictsExactlyThatFileOnce() {
    CacheTier t = tier(32L * 1024 * KB);
    for (int i = 0; i < 20; i++) {
      put(t, "f-doomed", i * 10_000L, 4 * KB, BlockType.DATA);
      put(t, "f-kept", i * 10_000L, 4 * KB, BlockType.DATA);
    }
    put(t, "f-doomed", 999_999L, 2 * KB, BlockType.BLOOM_CHUNK);
    settle(t);
    assertEquals(21, t.evictBlocksByHfileName("f-doomed"));
    assertEquals(0, t.evictBlocksByHfileName("f-doomed"), "second call finds nothing");
    assertEquals(0, t.evictBlocksByHfileName("f-never-cached"));
    settle(t);
    assertEquals(20, t.getBlockCount());
    for (int i = 0; i < 20; i++) {
      assertNull(t.getBlock(TestBlocks.key("f-doomed", i * 10_000L, BlockType.DATA), true, false,
          true));
      assertHit(t, "f-kept", i * 10_000L, 4 * KB, BlockType.DATA);
    }
  }

  @Test
  void shutdown_twice_dropsEverythingAndIgnoresLaterWrites() {
    CacheTier t = tier(8L * 1024 * KB);
    put(t, "f-shut", 0, 8 * KB, BlockType.DATA);
    t.shutdown();
    t.shutdown();
    assertEquals(0, t.getBlockCount());
    put(t, "f-shut", 1, 8 * KB, BlockType.DATA);
    assertNull(t.getBlock(TestBlocks.key("f-shut", 1, BlockType.DATA), true, false, true));
  }

  @Test
  void heldBlock_evictedWhileHeld_keepsItsBytesUntilReleased() {
    CacheTier t = tier(8L * 1024 * KB);
    put(t, "f-held", 0, 64 * KB, BlockType.DATA);
    BlockCacheKey key = TestBlocks.key("f-held", 0, BlockType.DATA);
    Cacheable held = t.getBlock(key, true, false, true);
    assertTrue(t.evictBlock(key));
    // Overwrite whatever memory the tier may reuse, then check the held block is intact.
    for (int i = 1; i <= 20; i++) {
      put(t, "f-other", i * 100_000L, 64 * KB, BlockType.DATA);
    }
    TestBlocks.assertBlock(key, 64 * KB, BlockType.DATA, held);
    if (held instanceof HFileBlock && ((HFileBlock) held).isSharedMem()) {
      assertTrue(held.refCnt() >= 1, "held shared-memory block must still be referenced");
    }
    held.release();
  }

  @Test
  void pooledBlocks_cachedReadAndEvicted_returnEveryBufferToThePool() {
    ByteBuffAllocator pool = TestBlocks.pooledAllocator(64);
    CacheTier t = tier(16L * 1024 * KB);
    for (int i = 0; i < 16; i++) {
      HFileBlock b = TestBlocks.pooled(pool, "f-pool", i * 70_000L, 60 * KB, BlockType.DATA);
      t.cacheBlock(TestBlocks.key("f-pool", i * 70_000L, BlockType.DATA), b, false, true);
      b.release();
    }
    List<Cacheable> held = new ArrayList<>();
    for (int i = 0; i < 16; i += 2) {
      BlockCacheKey key = TestBlocks.key("f-pool", i * 70_000L, BlockType.DATA);
      Cacheable got = t.getBlock(key, true, false, true);
      TestBlocks.assertBlock(key, 60 * KB, BlockType.DATA, got);
      held.add(got);
    }
    settle(t);
    t.evictBlocksByHfileName("f-pool");
    for (Cacheable c : held) {
      c.release();
    }
    // The allocator creates pooled buffers lazily; every buffer it created must be back.
    assertTrue(pool.getUsedBufferCount() > 0, "test blocks did not come from the pool");
    assertEquals(pool.getUsedBufferCount(), pool.getFreeBufferCount(),
        "pooled buffers not returned after every reference was released");
  }

  @Test
  void sizesAndCounts_followContent() {
    CacheTier t = tier(32L * 1024 * KB);
    long dataBytes = 0;
    long allBytes = 0;
    for (int i = 0; i < 30; i++) {
      BlockType type = i % 3 == 0 ? BlockType.LEAF_INDEX : BlockType.DATA;
      int size = (4 + i) * KB;
      put(t, "f-size", i * 100_000L, size, type);
      allBytes += size;
      if (type == BlockType.DATA) {
        dataBytes += size;
      }
    }
    settle(t);
    assertEquals(30, t.getBlockCount());
    assertEquals(20, t.getDataBlockCount());
    assertTrue(t.getCurrentSize() >= allBytes, "current size " + t.getCurrentSize()
        + " below the bytes held " + allBytes);
    assertTrue(t.getCurrentDataSize() >= dataBytes && t.getCurrentDataSize() < t.getCurrentSize(),
        "data size " + t.getCurrentDataSize());
    assertTrue(t.getCurrentSize() <= t.getMaxSize());
    // A tier may round blocks up to slot sizes, so free space is at most max - current.
    assertTrue(t.getFreeSize() >= 0 && t.getFreeSize() <= t.getMaxSize() - t.getCurrentSize(),
        "free size " + t.getFreeSize());
    assertEquals(30, t.evictBlocksByHfileName("f-size"));
    settle(t);
    assertEquals(0, t.getBlockCount());
    assertEquals(0, t.getDataBlockCount());
    assertEquals(0, t.getCurrentDataSize());
  }

  @Test
  void iterator_listsEveryCachedBlockOnce() {
    CacheTier t = tier(16L * 1024 * KB);
    Set<String> expected = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      BlockType type = i % 4 == 0 ? BlockType.BLOOM_CHUNK : BlockType.DATA;
      put(t, "f-iter-" + (i % 3), i * 50_000L, 8 * KB, type);
      expected.add("f-iter-" + (i % 3) + "@" + i * 50_000L + ":" + type);
    }
    settle(t);
    Set<String> seen = new HashSet<>();
    for (CachedBlock cb : t) {
      assertTrue(seen.add(cb.getFilename() + "@" + cb.getOffset() + ":" + cb.getBlockType()),
          "listed twice: " + cb);
      assertTrue(cb.getSize() >= 8 * KB, "size of " + cb);
      assertTrue(cb.getBlockPriority() != null, "priority of " + cb);
    }
    assertEquals(expected, seen);
  }

  @Test
  void overCapacity_staysWithinMaxAndNeverReturnsWrongBytes() {
    CacheTier t = tier(2L * 1024 * KB);
    for (int i = 0; i < 100; i++) {
      put(t, "f-flood", i * 70_000L, 64 * KB, BlockType.DATA);
      assertTrue(t.getCurrentSize() <= t.getMaxSize(), "over max after insert " + i);
    }
    settle(t);
    int hits = 0;
    for (int i = 0; i < 100; i++) {
      BlockCacheKey key = TestBlocks.key("f-flood", i * 70_000L, BlockType.DATA);
      Cacheable got = t.getBlock(key, true, false, true);
      if (got != null) {
        hits++;
        TestBlocks.assertBlock(key, 64 * KB, BlockType.DATA, got);
        got.release();
      }
    }
    assertTrue(hits > 0 && hits < 100, "hits " + hits);
    assertTrue(t.getCurrentSize() <= t.getMaxSize());
  }

  @Test
  void concurrentReadersWritersEvictors_seeded_neverReturnWrongBytes() throws Exception {
    CacheTier t = tier(4L * 1024 * KB);
    int threads = 4;
    int opsPerThread = 2_500;
    int files = 8;
    int blocksPerFile = 24;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (int w = 0; w < threads; w++) {
        long seed = SEED + w;
        futures.add(pool.submit(() -> {
          start.await();
          SplittableRandom rnd = new SplittableRandom(seed);
          for (int op = 0; op < opsPerThread; op++) {
            String file = "f-stress-" + rnd.nextInt(files);
            int block = rnd.nextInt(blocksPerFile);
            int size = sizeOf(block);
            BlockType type = block % 5 == 0 ? BlockType.LEAF_INDEX : BlockType.DATA;
            BlockCacheKey key = TestBlocks.key(file, block * 1_000_000L, type);
            int dice = rnd.nextInt(100);
            if (dice < 60) {
              Cacheable got = t.getBlock(key, true, false, true);
              if (got != null) {
                try {
                  TestBlocks.assertBlock(key, size, type, got);
                } catch (AssertionError e) {
                  throw new AssertionError("seed " + seed + " op " + op + ": " + e.getMessage(), e);
                } finally {
                  got.release();
                }
              }
            } else if (dice < 90) {
              HFileBlock b = TestBlocks.heap(file, key.getOffset(), size, type);
              t.cacheBlock(key, b, block % 7 == 0, rnd.nextBoolean());
              b.release();
            } else if (dice < 98) {
              t.evictBlock(key);
            } else {
              t.evictBlocksByHfileName(file);
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        try {
          f.get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          fail("stress failed with seed " + SEED + ": " + e.getCause(), e.getCause());
        }
      }
    } finally {
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    }
    settle(t);
    t.checkInvariants();
    assertTrue(t.getCurrentSize() <= t.getMaxSize(), "seed " + SEED);
  }

  private static int sizeOf(int block) {
    return (block % 4 == 0 ? 4 : block % 4 == 1 ? 16 : 64) * KB + block;
  }

  @Test
  void constructor_validConfiguration_buildsWorkingTier() {
    CacheTier t = newTier(validConfig(8L * 1024 * KB));
    created.add(t);
    put(t, "f-conf", 0, 8 * KB, BlockType.DATA);
    assertHit(t, "f-conf", 0, 8 * KB, BlockType.DATA);
  }

  @Test
  void constructor_invalidSettings_failNamingKeyAndRange() {
    Map<String, String> bad = new HashMap<>(invalidSettings());
    assertFalse(bad.isEmpty(), "a tier must reject some settings");
    for (Map.Entry<String, String> e : bad.entrySet()) {
      Configuration conf = validConfig(8L * 1024 * KB);
      conf.set(e.getKey(), e.getValue());
      SettingException ex = assertThrows(SettingException.class, () -> {
        CacheTier t = newTier(conf);
        created.add(t);
      }, e.getKey() + "=" + e.getValue() + " was accepted");
      assertTrue(ex.getMessage().contains(e.getKey()),
          "message does not name " + e.getKey() + ": " + ex.getMessage());
      assertTrue(ex.getMessage().contains("expected") || ex.getMessage().contains("must"),
          "message does not state what is accepted: " + ex.getMessage());
    }
  }
}
