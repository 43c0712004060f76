/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the combined cache's hot mode asks of the L1 (issue 11): a lookup of this tier alone, the
 * admission question asked before a 64 KB copy is made, and index and bloom blocks kept over
 * data copies. Deterministic: single-threaded, no randomness beyond the policy's fixed seed.
 */
class LruTierPromotionApiTest {
  private static final int KB = 1024;
  private static final int BLOCK = 64 * KB;

  private static BlockCacheKey data(String file, long i) {
    return TestBlocks.key(file, i * 100_000L, BlockType.DATA);
  }

  private static void put(LruTier tier, BlockCacheKey key, int size) {
    HFileBlock b = TestBlocks.heap(key.getHfileName(), key.getOffset(), size,
        key.getBlockType());
    tier.cacheBlock(key, b, false);
    b.release();
  }

  private static void hit(LruTier tier, BlockCacheKey key) {
    Cacheable b = tier.getBlock(key, true, false, true);
    b.release();
  }

  @Test
  void getIfPresent_hitRetainsAndCounts_missCountsNothingAndAsksNoVictimCache() {
    LruTier l1 = LruTier.builder().maxSize(4L * 1024 * KB).name("l1").build();
    LruTier victim = LruTier.builder().maxSize(4L * 1024 * KB).name("victim").build();
    l1.setVictimCache(victim);
    BlockCacheKey held = data("f", 1);
    BlockCacheKey below = data("f", 2);
    put(l1, held, 16 * KB);
    put(victim, below, 16 * KB);

    Cacheable got = l1.getIfPresent(held, true, true);
    TestBlocks.assertBlock(held, 16 * KB, BlockType.DATA, got);
    assertSame(got, l1.getIfPresent(held, true, false), "the same cached block");
    got.release();
    got.release(); // both references were the caller's: the cache's own one is still there
    assertEquals(1, l1.getStats().getHitCount(), "only the counted lookup counts");
    TestBlocks.assertBlock(held, 16 * KB, BlockType.DATA, l1.getIfPresent(held, true, true));

    assertNull(l1.getIfPresent(below, true, true), "a block of the victim cache is no hit here");
    assertEquals(0, l1.getStats().getMissCount(), "a miss is not counted");
    assertEquals(0, victim.getStats().getRequestCount(), "the victim cache is not asked");
    assertFalse(l1.containsBlock(below), "nothing is promoted");
    l1.checkInvariants();
    l1.shutdown();
    victim.shutdown();
  }

  @Test
  void wouldAdmit_roomOrHotterThanTheVictim_elseCountsTheAttemptUntilItWins() {
    long capacity = 8L * (BLOCK + 4 * KB); // eight 64 KB blocks with their overhead
    LruTier tier = LruTier.builder().maxSize(capacity).blockSizeHint(BLOCK).build();
    BlockCacheKey candidate = data("cold", 0);
    assertTrue(tier.wouldAdmit(candidate, BLOCK), "an empty cache has room");
    for (int i = 0; i < 8; i++) {
      put(tier, data("hot", i), BLOCK);
    }
    for (int r = 0; r < 3; r++) { // every resident block read three more times
      for (int i = 0; i < 8; i++) {
        hit(tier, data("hot", i));
      }
    }
    tier.checkInvariants(); // drains the read buffer into the policy
    assertEquals(8, tier.getBlockCount(), "all eight fit");
    long countBefore = tier.getBlockCount();
    long rejectsBefore = tier.getStats().admissionRejected();
    assertFalse(tier.wouldAdmit(candidate, BLOCK), "a block seen once loses to a hot victim");
    assertEquals(rejectsBefore + 1, tier.getStats().admissionRejected(), "counted as a reject");
    assertEquals(countBefore, tier.getBlockCount(), "nothing cached, nothing evicted");
    assertFalse(tier.containsBlock(candidate));
    int offers = 1;
    while (!tier.wouldAdmit(candidate, BLOCK)) {
      offers++;
      assertTrue(offers <= 16, "a block offered again and again must win its place");
    }
    assertTrue(offers > 1, "it earned its place by being offered again: " + offers);
    tier.checkInvariants();
    tier.shutdown();
    assertFalse(tier.wouldAdmit(candidate, BLOCK), "a shut-down tier admits nothing");
  }

  @Test
  void memoryFirst_dataCopiesNeverPushIndexBlocksOut_withoutItTheyShrinkToTheirShare() {
    long capacity = 16L * BLOCK;
    for (boolean first : new boolean[] {false, true}) {
      LruTier tier = LruTier.builder().maxSize(capacity).blockSizeHint(BLOCK).build();
      tier.setMemoryFirst(first);
      int index = 8; // half the cache, twice the in-memory share of a quarter
      for (int i = 0; i < index; i++) {
        put(tier, TestBlocks.key("m", i * 100_000L, BlockType.LEAF_INDEX), 32 * KB);
      }
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 40; i++) {
          put(tier, data("d", i), BLOCK);
        }
      }
      int kept = 0;
      for (int i = 0; i < index; i++) {
        kept += tier.containsBlock(TestBlocks.key("m", i * 100_000L, BlockType.LEAF_INDEX))
            ? 1 : 0;
      }
      if (first) {
        assertEquals(index, kept, "memory first: every index block stays");
      } else {
        assertTrue(kept < index, "without it the index blocks shrink to their share: " + kept);
      }
      assertTrue(tier.getDataBlockCount() > 0, "data blocks use the room left");
      tier.checkInvariants();
      tier.shutdown();
    }
  }

  @Test
  void cacheBlockIfIdle_cachesWhenTheLockIsFree_neverWaitsWhenItIsHeld() throws Exception {
    LruTier tier = LruTier.builder().maxSize(4L * 1024 * KB).build();
    BlockCacheKey first = data("f", 1);
    HFileBlock b1 = TestBlocks.heap("f", first.getOffset(), 16 * KB, BlockType.DATA);
    assertTrue(tier.cacheBlockIfIdle(first, b1, false));
    assertTrue(tier.containsBlock(first));
    b1.release();

    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
      tier.evictionLock.lock();
      try {
        held.countDown();
        done.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        tier.evictionLock.unlock();
      }
    });
    holder.start();
    assertTrue(held.await(30, TimeUnit.SECONDS));
    BlockCacheKey second = data("f", 2);
    HFileBlock b2 = TestBlocks.heap("f", second.getOffset(), 16 * KB, BlockType.DATA);
    long rejects = tier.getStats().admissionRejected();
    int refs = b2.refCnt();
    try {
      assertFalse(tier.wouldAdmit(second, 16 * KB), "busy: no answer that would wait");
      assertFalse(tier.cacheBlockIfIdle(second, b2, false), "busy: not cached, no wait");
    } finally {
      done.countDown();
      holder.join();
    }
    assertFalse(tier.containsBlock(second));
    assertEquals(rejects, tier.getStats().admissionRejected(), "a busy lock is no reject");
    assertEquals(refs, b2.refCnt(), "the caller's references are untouched, nothing kept");
    assertTrue(tier.cacheBlockIfIdle(second, b2, false), "free again: cached");
    b2.release();
    TestBlocks.assertBlock(second, 16 * KB, BlockType.DATA, tier.getIfPresent(second, true, true));
    tier.checkInvariants();
    tier.shutdown();
  }

  @Test
  void wouldAdmit_memoryFirstAndNoRoomBesideTheIndexBlocks_refusesTheCopy() {
    long capacity = 8L * (BLOCK + 4 * KB);
    LruTier tier = LruTier.builder().maxSize(capacity).blockSizeHint(BLOCK).build();
    tier.setMemoryFirst(true);
    for (int i = 0; i < 20; i++) { // more index blocks than the cache holds
      put(tier, TestBlocks.key("m", i * 100_000L, BlockType.LEAF_INDEX), 32 * KB);
    }
    assertEquals(0, tier.getDataBlockCount());
    long rejects = tier.getStats().admissionRejected();
    assertFalse(tier.wouldAdmit(data("d", 0), BLOCK),
        "a copy would be evicted at once: the index blocks give way last");
    assertEquals(rejects + 1, tier.getStats().admissionRejected());
    put(tier, data("d", 0), BLOCK);
    assertFalse(tier.containsBlock(data("d", 0)), "as the insert shows");
    tier.setMemoryFirst(false);
    assertTrue(tier.wouldAdmit(data("d", 1), BLOCK), "without it the index blocks give way");
    tier.checkInvariants();
    tier.shutdown();
  }
}
