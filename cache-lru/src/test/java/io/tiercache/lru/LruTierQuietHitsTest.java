/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.util.Iterator;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockPriority;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;

/**
 * A quiet L1 (misses under 1 % of requests) samples the hits on its PROTECTED blocks (one in 8)
 * and MEMORY blocks (one in 64); a busy one records every hit.
 */
class LruTierQuietHitsTest {
  private static final int BLOCK = 4 * 1024;
  private static final int BLOCKS = 256;
  private static final long SEED = 0x9017L;

  private static LruTier tier() {
    return LruTier.builder().maxSize((long) BLOCKS * (BLOCK + 1024)).blockSizeHint(BLOCK)
        .build();
  }

  /** Reads of 4 KB blocks, keyed by id, as the adaptive-window test does them. */
  private static boolean read(LruTier t, long id) {
    return LruTierAdaptiveWindowTest.read(t, id);
  }

  private static BlockCacheKey key(long id) {
    return LruTierAdaptiveWindowTest.key(id);
  }

  /** Fills the tier past its maximum with blocks 0.., then reads the newest half twice more. */
  private static void warm(LruTier t) {
    for (long id = 0; id < 2 * BLOCKS; id++) {
      read(t, id);
    }
    for (int pass = 0; pass < 2; pass++) {
      for (long id = 2 * BLOCKS - BLOCKS / 2; id < 2 * BLOCKS; id++) {
        read(t, id);
      }
    }
  }

  /** Reads the newest quarter of warm()'s blocks (all hits) until the tier turns quiet. */
  private static void readHotQuarterUntilQuiet(LruTier t) {
    SplittableRandom rnd = new SplittableRandom(SEED);
    int reads = 0;
    while (!t.quiet() && reads < 200_000) {
      read(t, 2 * BLOCKS - 1 - rnd.nextInt(BLOCKS / 4));
      reads++;
    }
    assertTrue(t.quiet(), "still busy after " + reads + " hits (seed " + SEED + ")");
  }

  private static BlockPriority priorityOf(LruTier t, BlockCacheKey key) {
    for (Iterator<CachedBlock> it = t.iterator(); it.hasNext();) {
      CachedBlock b = it.next();
      if (b.getFilename().equals(key.getHfileName()) && b.getOffset() == key.getOffset()) {
        return b.getBlockPriority();
      }
    }
    return null;
  }

  @Test
  void onlyHits_makeTheTierQuiet_andMissesMakeItBusyAgain() {
    LruTier t = tier();
    warm(t);
    assertFalse(t.quiet(), "not quiet before a period of hits");
    SplittableRandom rnd = new SplittableRandom(SEED);
    int reads = 0;
    while (!t.quiet() && reads < 200_000) {
      // only the blocks read three times: all in PROTECTED, every read a hit
      assertTrue(read(t, 2 * BLOCKS - 1 - rnd.nextInt(BLOCKS / 4)), "seed " + SEED);
      reads++;
    }
    assertTrue(t.quiet(), "still busy after " + reads + " hits (seed " + SEED + ")");

    long next = 10 * BLOCKS;
    reads = 0;
    while (t.quiet() && reads < 200_000) {
      // one read in ten is a block never seen: a miss and an insert
      if (reads % 10 == 0) {
        assertFalse(read(t, next++));
      } else {
        read(t, 2 * BLOCKS - 1 - rnd.nextInt(BLOCKS / 4));
      }
      reads++;
    }
    assertFalse(t.quiet(), "still quiet after " + reads + " reads with 10 % misses (seed "
        + SEED + ")");
    t.checkInvariants();
  }

  @Test
  void quietTier_keepsItsHotBlocks_againstAScanOfNewBlocks() {
    LruTier t = tier();
    warm(t);
    readHotQuarterUntilQuiet(t);
    // The hot quarter was read thousands of times, recorded one time in eight: its sampled hits
    // still count eight each, so a one-pass scan of new blocks does not displace it.
    for (long id = 20 * BLOCKS; id < 22 * BLOCKS; id++) {
      read(t, id);
    }
    int kept = 0;
    for (long id = 2 * BLOCKS - BLOCKS / 4; id < 2 * BLOCKS; id++) {
      kept += t.containsBlock(key(id)) ? 1 : 0;
    }
    assertEquals(BLOCKS / 4, kept, "hot blocks kept after the scan (seed " + SEED + ")");
    t.checkInvariants();
  }

  @Test
  void quietTier_recordsOneMetaHitIn64_andOneProtectedHitIn8() {
    LruTier t = tier();
    warm(t);
    BlockCacheKey meta = TestBlocks.key("meta", 0, BlockType.LEAF_INDEX);
    HFileBlock index = TestBlocks.heap("meta", 0, BLOCK, BlockType.LEAF_INDEX);
    t.cacheBlock(meta, index, true);
    readHotQuarterUntilQuiet(t);
    long hot = 2 * BLOCKS - BLOCKS / 4; // promoted by warm() or the busy reads above
    assertEquals(BlockPriority.MULTI, priorityOf(t, key(hot)), "hot block in PROTECTED");
    assertEquals(BlockPriority.MEMORY, priorityOf(t, meta), "meta block in MEMORY");
    int hits = 6_400;
    long before = t.appliedHits(true);
    for (int i = 0; i < hits; i++) {
      Cacheable got = t.getBlock(meta, true, false, true);
      assertTrue(got != null, "meta block cached");
      got.release();
    }
    long metaApplied = t.appliedHits(true) - before;
    before = t.appliedHits(true);
    for (int i = 0; i < hits; i++) {
      assertTrue(read(t, hot));
    }
    long hotApplied = t.appliedHits(true) - before;
    assertTrue(t.quiet(), "still quiet");
    // Binomial: 100 +- 10 of 6,400 at 1/64, 800 +- 26 at 1/8 (ThreadLocalRandom: no seed; the
    // bounds are five standard deviations and more away).
    assertTrue(metaApplied >= 50 && metaApplied <= 160, "meta hits applied: " + metaApplied);
    assertTrue(hotApplied >= 650 && hotApplied <= 950, "PROTECTED hits applied: " + hotApplied);
    t.checkInvariants();
  }
}
