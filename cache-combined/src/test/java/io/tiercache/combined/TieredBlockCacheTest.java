/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static io.tiercache.core.contract.TestBlocks.assertBlock;
import static io.tiercache.core.contract.TestBlocks.heap;
import static io.tiercache.core.contract.TestBlocks.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.config.SettingException;
import io.tiercache.lru.LruTier;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CombinedBlockCache.CombinedCacheStats;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link TieredBlockCache} in each mode, on small real tiers. */
class TieredBlockCacheTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261121L);
  private static final int PAYLOAD = 16 * 1024;

  private TieredBlockCache cache;

  private TieredBlockCache build(TieringMode mode, long l1Bytes, long l2Bytes, int promoteHits) {
    LruTier l1 = LruTier.builder().maxSize(l1Bytes).blockSizeHint(PAYLOAD).build();
    BucketTier l2 = BucketTier.builder().ioEngine("offheap").capacity(l2Bytes).slabSize(1 << 20)
        .writers(2, 8).build();
    cache = new TieredBlockCache(l1, l2, mode, promoteHits, false); // hot: copy promotion
    return cache;
  }

  @AfterEach
  void tearDown() {
    if (cache != null) {
      cache.l2().flush(30_000);
      cache.checkInvariants();
      cache.shutdown();
    }
  }

  private Cacheable get(BlockCacheKey k) {
    return cache.getBlock(k, true, false, true);
  }

  private void assertHit(BlockCacheKey k, BlockType type) {
    Cacheable b = get(k);
    assertBlock(k, PAYLOAD, type, b);
    b.release();
  }

  /** Caches data blocks 0..n-1 of file "f"; returns n. */
  private int fill(int n) {
    for (int i = 0; i < n; i++) {
      cache.cacheBlock(key("f", i * 100_000L, BlockType.DATA),
          heap("f", i * 100_000L, PAYLOAD, BlockType.DATA));
    }
    return n;
  }

  /** The first of blocks 0..n-1 of file "f" that the L1 does not hold. */
  private BlockCacheKey firstNotInL1(int n) {
    for (int i = 0; i < n; i++) {
      BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
      if (!cache.l1().containsBlock(k)) {
        return k;
      }
    }
    throw new AssertionError("the small L1 evicted none of " + n + " blocks");
  }

  /** The first of blocks 0..n-1 of file "f" that the L1 holds. */
  private BlockCacheKey firstInL1(int n) {
    for (int i = 0; i < n; i++) {
      BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
      if (cache.l1().containsBlock(k)) {
        return k;
      }
    }
    throw new AssertionError("the L1 holds none of " + n + " blocks");
  }

  @Test
  void hbaseModePlacesIndexAndBloomInL1AndDataInL2() {
    build(TieringMode.HBASE, 8 << 20, 8 << 20, 2);
    BlockCacheKey data = key("f1", 0, BlockType.DATA);
    BlockCacheKey index = key("f1", 100_000, BlockType.LEAF_INDEX);
    cache.cacheBlock(data, heap("f1", 0, PAYLOAD, BlockType.DATA));
    cache.cacheBlock(index, heap("f1", 100_000, PAYLOAD, BlockType.LEAF_INDEX));
    cache.l2().flush(30_000);
    assertEquals(1, cache.l1().getBlockCount());
    assertEquals(1, cache.l2().getBlockCount());
    assertTrue(cache.l1().containsBlock(index));
    assertHit(data, BlockType.DATA);
    assertHit(index, BlockType.LEAF_INDEX);
    assertEquals(1, cache.l1().getStats().getHitCount());
    assertEquals(1, cache.l2().getStats().getHitCount());
  }

  @Test
  void statsAreOneLiveCombinedObjectOverTheTiers() {
    build(TieringMode.HBASE, 8 << 20, 8 << 20, 2);
    CombinedCacheStats stats = (CombinedCacheStats) cache.getStats();
    assertSame(stats, cache.getStats());
    assertSame(cache.l1().getStats(), stats.getLruCacheStats());
    assertSame(cache.l2().getStats(), stats.getBucketCacheStats());
    assertNull(get(key("f", 0, BlockType.DATA)));
    assertEquals(1, stats.getMissCount());
  }

  @Test
  void exclusiveModeDemotesL1VictimsAndPromotesRepeatedL2Hits() {
    // L1 holds a few blocks; the rest must be demoted to the L2, none lost.
    build(TieringMode.EXCLUSIVE, 4 * (PAYLOAD + 4096), 8 << 20, 2);
    int n = fill(40);
    cache.l2().flush(30_000);
    assertTrue(cache.l1().getBlockCount() < n);
    assertEquals(n, cache.l1().getBlockCount() + cache.l2().getBlockCount(),
        "each block in exactly one tier");
    BlockCacheKey cold = firstNotInL1(n);
    assertTrue(cache.isAlreadyCached(cold).orElseThrow(), "written to the L2");
    assertTrue(cache.isAlreadyCached(firstInL1(n)).orElseThrow(), "held by the L1");
    assertHit(cold, BlockType.DATA);
    assertFalse(cache.l1().containsBlock(cold), "one L2 hit is not enough to promote");
    Cacheable second = cache.getBlock(cold, true, false, true, BlockType.DATA); // 3.0's lookup
    assertBlock(cold, PAYLOAD, BlockType.DATA, second);
    second.release();
    assertTrue(cache.l1().containsBlock(cold), "the second L2 hit promotes");
    cache.l2().flush(30_000);
    assertHit(cold, BlockType.DATA);
    assertEquals(n, cache.l1().getBlockCount() + cache.l2().getBlockCount(),
        "a promoted block leaves the L2 (its L1 victim moved down)");
  }

  /**
   * The L2's admission filter never sees the L1's hits, so it would rate every demoted block as
   * cold and, once the L2 is full, reject it: demotions pass the filter.
   */
  @Test
  void exclusiveModeKeepsDemotedBlocksWhenTheL2IsFull() {
    LruTier l1 = LruTier.builder().maxSize(4 * (PAYLOAD + 4096)).blockSizeHint(PAYLOAD).build();
    BucketTier l2 = BucketTier.builder().ioEngine("offheap").capacity(2 << 20)
        .slabSize(1 << 20).writers(2, 8).admission("tinylfu").build();
    cache = new TieredBlockCache(l1, l2, TieringMode.EXCLUSIVE, 2);
    int n = 400; // several times what both tiers hold
    for (int i = 0; i < n; i++) {
      cache.cacheBlock(key("f", i * 100_000L, BlockType.DATA),
          heap("f", i * 100_000L, PAYLOAD, BlockType.DATA));
      cache.l2().flush(30_000); // no writer queue ever full: only admission could drop a block
    }
    int kept = 0;
    for (int i = n - 40; i < n; i++) {
      BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
      if (cache.l1().containsBlock(k) || cache.l2().isAlreadyCached(k).orElse(false)) {
        kept++;
      }
    }
    assertEquals(40, kept, "the newest blocks, each demoted into a full L2, are all cached");
    assertEquals(0, cache.l2().getStats().admissionRejected());
  }

  @Test
  void inclusiveModeWritesBothTiersAndCopiesL2HitsUp() {
    build(TieringMode.INCLUSIVE, 4 * (PAYLOAD + 4096), 8 << 20, 1);
    int n = fill(20);
    cache.l2().flush(30_000);
    assertEquals(n, cache.l2().getBlockCount(), "every block in the L2");
    BlockCacheKey first = firstNotInL1(n);
    assertHit(first, BlockType.DATA);
    assertTrue(cache.l1().containsBlock(first), "copied up on its L2 hit");
    assertEquals(n, cache.l2().getBlockCount(), "and still in the L2");
    assertEquals(1, cache.l2().getStats().getHitCount());
  }

  @Test
  void hotModeKeepsHBasePlacementAndCopiesRepeatedL2DataHitsUp() {
    build(TieringMode.HOT, 4 * (PAYLOAD + 4096), 8 << 20, 2);
    int n = fill(20);
    BlockCacheKey index = key("f1", 0, BlockType.LEAF_INDEX);
    cache.cacheBlock(index, heap("f1", 0, PAYLOAD, BlockType.LEAF_INDEX));
    cache.l2().flush(30_000);
    assertEquals(n, cache.l2().getBlockCount(), "data blocks go to the L2 only");
    assertEquals(1, cache.l1().getBlockCount(), "the index block goes to the L1 only");
    BlockCacheKey data = key("f", 0, BlockType.DATA);
    assertHit(data, BlockType.DATA);
    assertFalse(cache.l1().containsBlock(data), "one L2 hit is not enough to copy it up");
    assertHit(data, BlockType.DATA);
    assertTrue(cache.l1().containsBlock(data), "the second L2 hit copies it to the L1");
    assertEquals(n, cache.l2().getBlockCount(), "and it stays in the L2");
    assertEquals(1, cache.promotions());
    assertHit(data, BlockType.DATA);
    assertEquals(2, cache.l2().getStats().getHitCount(), "HBase's accounting: L2 hits in the L2");
    assertEquals(1, cache.l1().getStats().getHitCount(), "a hit on the copy is an L1 hit");
    assertEquals(0, cache.l1().getStats().getMissCount(),
        "a data block missing from the L1 is not an L1 miss (HBase's accounting)");
    assertHit(index, BlockType.LEAF_INDEX);
    // The L1 holds four blocks: copying more up evicts the first copy, which the L2 still serves.
    for (int i = 1; i < n; i++) {
      BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
      assertHit(k, BlockType.DATA);
      assertHit(k, BlockType.DATA);
    }
    assertTrue(cache.l1().getBlockCount() < n, "the small L1 dropped copies");
    assertEquals(n, cache.l2().getBlockCount(), "every block still in the L2");
    for (int i = 0; i < n; i++) {
      assertHit(key("f", i * 100_000L, BlockType.DATA), BlockType.DATA);
    }
  }

  /** Hot mode with a 4-block L1 and {@code promotion}; fills and flushes {@code n} blocks. */
  private int startHotMove(HotPromotion promotion, int n) {
    LruTier l1 = LruTier.builder().maxSize(4 * (PAYLOAD + 4096)).blockSizeHint(PAYLOAD).build();
    BucketTier l2 = BucketTier.builder().ioEngine("offheap").capacity(8 << 20)
        .slabSize(1 << 20).writers(2, 8).build();
    cache = new TieredBlockCache(l1, l2, TieringMode.HOT, 2, promotion);
    assertEquals(promotion, cache.hotPromotion());
    fill(n);
    cache.l2().flush(30_000);
    return n;
  }

  /** After the L2's writes land: the L1 evicted some, every block is in one tier and a hit. */
  private void assertEveryBlockInOneTier(int n) {
    cache.l2().flush(30_000);
    assertTrue(cache.l1().getBlockCount() < n, "the small L1 evicted blocks");
    assertEquals(n, cache.l1().getBlockCount() + cache.l2().getBlockCount(),
        "every block in exactly one tier: L1 victims went back to the L2");
    for (int i = 0; i < n; i++) {
      assertHit(key("f", i * 100_000L, BlockType.DATA), BlockType.DATA);
    }
  }

  /**
   * Move promotion (the default): the L2 slot of a promoted block is freed as soon as the L1
   * holds it, so no block is ever held twice; the L1's victims go back to the L2.
   */
  @Test
  void hotModeMove_freesL2SlotAtPromotionAndL1VictimGoesBack() {
    int n = startHotMove(HotPromotion.MOVE, 20);
    BlockCacheKey data = key("f", 0, BlockType.DATA);
    assertHit(data, BlockType.DATA);
    assertEquals(n, cache.l2().getBlockCount(), "one L2 hit is below the promotion bar");
    assertHit(data, BlockType.DATA);
    assertTrue(cache.l1().containsBlock(data), "the second L2 hit moves it to the L1");
    assertEquals(n - 1, cache.l2().getBlockCount(), "and frees its L2 slot at once");
    assertFalse(cache.l2().isAlreadyCached(data).orElse(true));
    long l2Hits = cache.l2().getStats().getHitCount();
    assertHit(data, BlockType.DATA);
    assertEquals(l2Hits, cache.l2().getStats().getHitCount(), "served by the L1");
    for (int round = 0; round < 2; round++) {
      for (int i = 1; i < n; i++) {
        BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
        assertHit(k, BlockType.DATA);
        assertHit(k, BlockType.DATA);
        assertFalse(cache.l1().containsBlock(k) && cache.l2().isAlreadyCached(k).orElse(false),
            "never held twice: " + k);
      }
    }
    assertEveryBlockInOneTier(n);
  }

  /**
   * Move-on-hit promotion: a copy the L1 serves frees its L2 slot, and a block the L1 then evicts
   * goes back to the L2 (through its admission filter, which admits while the class has free
   * space), so each block lives in one tier and the L1 adds capacity.
   */
  @Test
  void hotModeMoveOnHit_copyHitInL1_freesL2SlotAndL1VictimGoesBack() {
    int n = startHotMove(HotPromotion.MOVE_ON_HIT, 20);
    assertTrue(cache.hotMove());
    BlockCacheKey data = key("f", 0, BlockType.DATA);
    assertHit(data, BlockType.DATA);
    assertHit(data, BlockType.DATA);
    assertTrue(cache.l1().containsBlock(data), "the second L2 hit copies it to the L1");
    assertEquals(n, cache.l2().getBlockCount(), "a copy not yet hit keeps its L2 slot");
    assertHit(data, BlockType.DATA);
    assertEquals(n - 1, cache.l2().getBlockCount(), "its first L1 hit frees the L2 slot");
    assertFalse(cache.l2().isAlreadyCached(data).orElse(true));
    for (int i = 1; i < n; i++) {
      BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
      assertHit(k, BlockType.DATA);
      assertHit(k, BlockType.DATA);
      assertHit(k, BlockType.DATA);
    }
    for (int i = 1; i < n; i++) {
      // A block copied up at its last read above keeps its L2 slot until its first L1 hit.
      BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
      if (cache.l1().containsBlock(k)) {
        assertHit(k, BlockType.DATA);
      }
    }
    assertEveryBlockInOneTier(n);
    String region = "0123456789abcdef0123456789abcdef";
    BlockCacheKey moved = new BlockCacheKey(new org.apache.hadoop.fs.Path(
        "/hbase/data/default/t/" + region + "/cf/abc123"), 0, true, BlockType.DATA);
    HFileBlock b = heap("abc123", 0, PAYLOAD, BlockType.DATA);
    cache.cacheBlock(moved, b, false, true);
    // Read until it beats the full L1's victim: each copy the L1 would refuse counts a sighting.
    for (int i = 0; i < 12; i++) {
      get(moved).release();
    }
    assertFalse(cache.l2().isAlreadyCached(moved).orElse(true), "moved to the L1");
    assertEquals(b.getSerializedLength(),
        cache.getRegionCachedInfo().orElseThrow().getOrDefault(region, 0L),
        "region bytes count the L1's data blocks in move mode");
    b.release();
  }

  /**
   * HBase's reader looks a missed block up again under its lock; that repeat is no new miss.
   * Not in hbase mode, whose lookup is HBase 2.6.4's {@code CombinedBlockCache#getBlock}: it
   * counts the repeat as a second L2 miss (measured here), as HBase's own combined cache does.
   */
  @ParameterizedTest
  @EnumSource(value = TieringMode.class, names = "HBASE", mode = EnumSource.Mode.EXCLUDE)
  void repeatedLookupOfAMiss_countsOneMiss(TieringMode mode) {
    build(mode, 4 * (PAYLOAD + 4096), 8 << 20, 2);
    BlockCacheKey data = key("f", 0, BlockType.DATA);
    assertNull(cache.getBlock(data, true, false, true));
    assertNull(cache.getBlock(data, true, true, true));
    CombinedCacheStats stats = (CombinedCacheStats) cache.getStats();
    assertEquals(1, stats.getBucketCacheStats().getMissCount(), mode.key() + " L2 misses, L1 "
        + stats.getLruCacheStats().getMissCount());
  }

  @Test
  void hotModeDemotesIndexVictimsToTheL2AndServesThemThere() {
    build(TieringMode.HOT, 4 * (PAYLOAD + 4096), 8 << 20, 2);
    int n = 10;
    for (int i = 0; i < n; i++) {
      cache.cacheBlock(key("m", i * 100_000L, BlockType.LEAF_INDEX),
          heap("m", i * 100_000L, PAYLOAD, BlockType.LEAF_INDEX));
    }
    cache.l2().flush(30_000);
    assertTrue(cache.l1().getBlockCount() < n, "the small L1 evicted index blocks");
    assertEquals(n, cache.l1().getBlockCount() + cache.l2().getBlockCount(),
        "an index block the L1 evicts is written to the L2, not lost");
    BlockCacheKey demoted = null;
    for (int i = 0; i < n && demoted == null; i++) {
      BlockCacheKey k = key("m", i * 100_000L, BlockType.LEAF_INDEX);
      demoted = cache.l1().containsBlock(k) ? null : k;
    }
    long l1MissesBefore = cache.l1().getStats().getMissCount();
    assertHit(demoted, BlockType.LEAF_INDEX);
    assertEquals(1, cache.l2().getStats().getHitCount(), "served by the L2");
    assertEquals(l1MissesBefore, cache.l1().getStats().getMissCount());
    assertFalse(cache.l1().containsBlock(demoted), "and stays there: no 64 KB moved per hit");
    assertHit(demoted, BlockType.LEAF_INDEX);
    assertEquals(2, cache.l2().getStats().getHitCount());
    assertNull(get(key("m", 99 * 100_000L, BlockType.LEAF_INDEX)));
    assertEquals(l1MissesBefore + 1, cache.l1().getStats().getMissCount(),
        "an index miss counts in the L1, as HBase counts it");
  }

  /**
   * Blocks read twice each and never again: the full L1 would throw every copy the second read
   * makes away at once (its TinyLFU duel), so none is made: the L1 is asked first
   * ({@code LruTier#wouldAdmit}), and a refused block costs a sketch look, not a 64 KB copy.
   */
  @Test
  void hotModeMakesNoCopyTheL1WouldThrowAway() {
    build(TieringMode.HOT, 8 * (PAYLOAD + 4096), 64 << 20, 2);
    int n = 3000;
    fill(n);
    cache.l2().flush(30_000);
    for (int i = 0; i < n; i++) {
      BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
      assertHit(k, BlockType.DATA);
      assertHit(k, BlockType.DATA);
    }
    long refused = cache.l1().getStats().admissionRejected();
    assertTrue(cache.promotions() < n / 20, "copies: " + cache.promotions() + " of " + n);
    assertTrue(refused > n * 9 / 10, "refused before any copy: " + refused + " of " + n);
    assertEquals(n, cache.l2().getBlockCount(), "every block still in the L2");
  }

  /**
   * Data copies never push index or bloom blocks out of the L1 (hot mode's L1 keeps them first,
   * {@code LruTier#setMemoryFirst}), though they take more than the in-memory share here.
   */
  @Test
  void hotModeCopiesNeverPushIndexBlocksOut() {
    build(TieringMode.HOT, 4 * (PAYLOAD + 4096), 64 << 20, 2);
    int n = 1200;
    fill(n);
    for (int i = 0; i < 3; i++) {
      cache.cacheBlock(key("m", i * 100_000L, BlockType.LEAF_INDEX),
          heap("m", i * 100_000L, PAYLOAD, BlockType.LEAF_INDEX));
    }
    cache.l2().flush(30_000);
    for (int i = 0; i < n; i++) {
      BlockCacheKey k = key("f", i * 100_000L, BlockType.DATA);
      for (int r = 0; r < 4; r++) {
        assertHit(k, BlockType.DATA); // the second read may copy it; later reads hit the copy
      }
      assertHit(key("m", (i % 3) * 100_000L, BlockType.LEAF_INDEX), BlockType.LEAF_INDEX);
    }
    assertTrue(cache.promotions() > 0, "data blocks were copied up");
    for (int i = 0; i < 3; i++) {
      assertTrue(cache.l1().containsBlock(key("m", i * 100_000L, BlockType.LEAF_INDEX)),
          "index block " + i + " stays in the L1");
    }
    assertEquals(0, cache.l2().getStats().getLeafIndexHitCount(), "no index read went to the L2");
    assertEquals(0, cache.l2().getBlockCount() - n, "no index block was pushed down to the L2");
  }

  @ParameterizedTest
  @EnumSource(TieringMode.class)
  void evictionReachesBothTiers(TieringMode mode) {
    build(mode, 8 << 20, 8 << 20, 1);
    for (int i = 0; i < 10; i++) {
      String file = i % 2 == 0 ? "even" : "odd";
      cache.cacheBlock(key(file, i * 100_000L, BlockType.DATA),
          heap(file, i * 100_000L, PAYLOAD, BlockType.DATA));
    }
    cache.l2().flush(30_000);
    for (int i = 0; i < 10; i++) {
      BlockCacheKey k = key(i % 2 == 0 ? "even" : "odd", i * 100_000L, BlockType.DATA);
      Cacheable b = get(k);
      if (b != null) {
        b.release();
      }
    }
    cache.l2().flush(30_000);
    assertTrue(cache.evictBlocksByHfileName("even") >= 5);
    assertTrue(cache.evictBlock(key("odd", 100_000L, BlockType.DATA)));
    for (int i = 0; i < 10; i++) {
      BlockCacheKey k = key(i % 2 == 0 ? "even" : "odd", i * 100_000L, BlockType.DATA);
      if (i % 2 == 0 || i == 1) {
        assertNull(get(k), "evicted " + k);
      }
    }
  }

  /**
   * Seeded random operations in every mode against a reference of what was cached: a lookup may
   * miss, but a hit always returns the bytes last cached under its key.
   */
  @ParameterizedTest
  @EnumSource(TieringMode.class)
  void randomOperationsNeverReturnWrongBytes(TieringMode mode) {
    build(mode, 6 * (PAYLOAD + 4096), 3 << 20, 2);
    Random random = new Random(SEED + mode.ordinal());
    // As in an HFile, the block at an offset has one type (BlockCacheKey ignores the type).
    Map<BlockCacheKey, BlockType> cached = new HashMap<>();
    BlockType[] types = {BlockType.DATA, BlockType.DATA, BlockType.DATA, BlockType.LEAF_INDEX,
        BlockType.BLOOM_CHUNK};
    java.util.function.BiFunction<String, Long, BlockType> typeAt =
        (file, offset) -> types[(int) ((offset / 100_000 + file.hashCode()) & 0x7fffffff)
            % types.length];
    try {
      for (int op = 0; op < 4_000; op++) {
        String file = "file" + random.nextInt(4);
        long offset = random.nextInt(120) * 100_000L;
        int choice = random.nextInt(100);
        BlockType type = typeAt.apply(file, offset);
        if (choice < 35) {
          BlockCacheKey k = key(file, offset, type);
          cache.cacheBlock(k, heap(file, offset, PAYLOAD, type));
          cached.put(k, type);
        } else if (choice < 95) {
          BlockCacheKey k = key(file, offset, type);
          Cacheable b = get(k);
          if (b != null) {
            assertTrue(cached.containsKey(k), "a hit for a block never cached: " + k);
            assertBlock(k, PAYLOAD, type, b);
            b.release();
          }
        } else if (choice < 98) {
          cache.evictBlock(key(file, offset, type));
          cached.remove(key(file, offset, type));
        } else {
          cache.evictBlocksByHfileName(file);
          cached.keySet().removeIf(k -> k.getHfileName().equals(file));
        }
      }
    } catch (AssertionError e) {
      throw new AssertionError("mode " + mode + ", seed " + SEED + ": " + e.getMessage(), e);
    }
  }

  @Test
  void shutdownRunsOnceAndStopsBothTiers() {
    build(TieringMode.EXCLUSIVE, 8 << 20, 8 << 20, 2);
    cache.shutdown();
    cache.shutdown();
    BlockCacheKey k = key("f", 0, BlockType.DATA);
    cache.cacheBlock(k, heap("f", 0, PAYLOAD, BlockType.DATA));
    assertNull(get(k));
    cache = null;
  }

  @Test
  void configurationBuildsBothTiersAndTheMode() {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.memory.size", "8m");
    conf.set("hbase.bucketcache.ioengine", "offheap");
    conf.set("hbase.bucketcache.size", "16");
    conf.set("tiercache.combined.mode", "inclusive");
    cache = new TieredBlockCache(conf);
    assertEquals(TieringMode.INCLUSIVE, cache.mode());
    assertEquals(8 << 20, cache.l1().getMaxSize());
    // 16 MB of direct memory for an offheap L2: 7 slabs of 2056 KB (the default slab), and its
    // slot records beside them
    assertEquals(7L * 2056 * 1024, cache.l2().getMaxSize());
    cache.setMaxSize(4 << 20);
    assertEquals(4 << 20, cache.l1().getMaxSize(), "HeapMemoryManager's resize reaches the L1");
  }

  @Test
  void badSettingsNameTheKey() {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.memory.size", "8m");
    SettingException noL2 = assertThrows(SettingException.class, () -> new TieredBlockCache(conf));
    assertEquals("hbase.bucketcache.size", noL2.key());
    assertTrue(noL2.getMessage().contains("io.tiercache.lru.LruTier"), noL2.getMessage());

    conf.set("hbase.bucketcache.size", "16");
    conf.set("tiercache.combined.mode", "both");
    SettingException mode = assertThrows(SettingException.class,
        () -> new TieredBlockCache(conf));
    assertEquals("tiercache.combined.mode", mode.key());
    assertTrue(mode.getMessage().contains("hbase, hot, exclusive, inclusive"), mode.getMessage());

    conf.set("tiercache.combined.mode", "exclusive");
    conf.set("tiercache.combined.promote.min.hits", "0");
    assertEquals("tiercache.combined.promote.min.hits",
        assertThrows(SettingException.class, () -> new TieredBlockCache(conf)).key());

    conf.unset("tiercache.combined.promote.min.hits");
    conf.set("tiercache.combined.hot.promotion", "swap");
    SettingException promotion = assertThrows(SettingException.class,
        () -> new TieredBlockCache(conf));
    assertEquals("tiercache.combined.hot.promotion", promotion.key());
    assertTrue(promotion.getMessage().contains("copy, move or move-on-hit"),
        promotion.getMessage());

    conf.unset("tiercache.combined.hot.promotion");
    conf.set("hbase.bucketcache.ioengine", "heap");
    assertEquals("hbase.bucketcache.ioengine",
        assertThrows(SettingException.class, () -> new TieredBlockCache(conf)).key());
  }

  /** Region cached bytes count the L1's blocks too where data blocks live there (exclusive). */
  @ParameterizedTest
  @EnumSource(TieringMode.class)
  void regionCachedInfo_countsWhereTheBlocksAre(TieringMode mode) {
    build(mode, 8L << 20, 16L << 20, 2);
    String region = "0123456789abcdef0123456789abcdef";
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(
        "/hbase/data/default/t/" + region + "/cf/abc123");
    BlockCacheKey k = new BlockCacheKey(file, 0, true, BlockType.DATA);
    HFileBlock b = heap("abc123", 0, PAYLOAD, BlockType.DATA);
    cache.cacheBlock(k, b, false, true);
    cache.l2().flush(30_000);
    long bytes = cache.getRegionCachedInfo().get().getOrDefault(region, 0L);
    assertEquals(b.getSerializedLength(), bytes, mode + ": one block's bytes");
    b.release();
  }

  /**
   * A file prefetch cached completely is listed (and unlisted once a block goes) in every mode;
   * in exclusive mode its data blocks are split between the tiers, and both are counted.
   */
  @ParameterizedTest
  @EnumSource(TieringMode.class)
  void fullyCachedFiles_countTheBlocksOfBothTiers(TieringMode mode) {
    build(mode, 1L << 20, 16L << 20, 2);
    String region = "fedcba9876543210fedcba9876543210";
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(
        "/hbase/data/default/t/" + region + "/cf/split0");
    int n = 150; // 2.4 MB of data blocks: more than the 1 MB L1 holds
    long size = 0;
    for (int i = 0; i < n; i++) {
      BlockCacheKey k = new BlockCacheKey(file, i * 100_000L, true, BlockType.DATA);
      HFileBlock b = heap("split0", i * 100_000L, PAYLOAD, BlockType.DATA);
      size += b.getOnDiskSizeWithHeader();
      cache.cacheBlock(k, b, false, true);
      b.release();
    }
    cache.l2().flush(30_000);
    int inL1 = cache.l1().dataBlocksOf("split0");
    int inL2 = cache.l2().dataBlocksOf("split0");
    if (mode == TieringMode.EXCLUSIVE) {
      assertTrue(inL1 > 0 && inL2 > 0 && inL1 + inL2 == n,
          "precondition: the blocks are split between the tiers: L1 " + inL1 + ", L2 " + inL2);
    } else {
      assertEquals(n, inL2, mode + ": the L2 holds every data block");
    }
    cache.notifyFileCachingCompleted(file, n, n, size);
    Map<String, org.apache.hadoop.hbase.util.Pair<String, Long>> listed =
        cache.getFullyCachedFiles().get();
    assertTrue(listed.containsKey("split0"), mode + ": listed (L1 " + inL1 + ", L2 " + inL2
        + " blocks)");
    assertEquals(region, listed.get("split0").getFirst(), mode + ": the file's region");
    assertEquals(size, listed.get("split0").getSecond(), mode + ": the file's size");

    // One data block gone from wherever it is: no longer fully cached.
    assertTrue(cache.evictBlock(key("split0", 0, BlockType.DATA)), "evicted");
    assertFalse(cache.getFullyCachedFiles().get().containsKey("split0"), mode + ": unlisted");
  }

  /** HBase 3.0's start-up calls: a cache with nothing to restore is ready; a shut one is not. */
  @ParameterizedTest
  @EnumSource(TieringMode.class)
  void cacheInitialization_readyAtOnce_disabledAfterShutdown(TieringMode mode) {
    build(mode, 1L << 20, 16L << 20, 2);
    assertTrue(cache.isCacheEnabled(), mode + ": enabled");
    assertTrue(cache.waitForCacheInitialization(0), mode + ": nothing to restore");
    cache.shutdown();
    assertFalse(cache.isCacheEnabled(), mode + ": shut down");
    assertFalse(cache.waitForCacheInitialization(0), mode + ": shut down");
    cache = null;
  }
}
