/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.meta.BlockMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The L2's protected segment ({@code evict.Clock}): blocks read twice between two visits of the
 * hand survive a sweep of new blocks that one plain CLOCK would age them out by; the segment
 * keeps to its cap, and its count follows every way a block leaves.
 */
class ClockProtectionTest {
  private static final int KB = 1024;
  private static final int MB = 1 << 20;
  private static final int SMALL = 0; // 16 KB slots, 64 per 1 MB slab
  private static final int LARGE = 1;

  private static SlabAllocator allocator(int slabCount, int protectedPercent) {
    SlabAllocator a = new SlabAllocator(new SizeClasses(new int[] {16 * KB, 64 * KB}, MB),
        (long) slabCount * MB, MB);
    a.setProtectedPercent(protectedPercent);
    return a;
  }

  private static long insert(SlabAllocator a, long blockOffset) {
    return insert(a, SMALL, blockOffset);
  }

  /** Allocates a slot of class {@code c}, describes a data block in it and publishes it. */
  private static long insert(SlabAllocator a, int c, long blockOffset) {
    long h = a.allocate(c);
    assertNotEquals(Handles.NONE, h, "allocation of block " + blockOffset + " in class " + c);
    BlockMeta m = new BlockMeta();
    m.fileId = 1 + c;
    m.blockOffset = blockOffset;
    m.length = 1000;
    m.flags = BlockMeta.F_DATA;
    a.describe(h, m);
    assertTrue(a.markPublished(h));
    return h;
  }

  private static void hit(SlabAllocator a, long h) {
    assertTrue(a.pin(h), "pin of " + Handles.toString(h));
    a.unpin(h);
  }

  /** Evicts CLOCK's victim of the full class and inserts a new block (never read) in its place. */
  private static long churn(SlabAllocator a, long blockOffset) {
    SlabAllocator.Reclaim r = a.reclaim(SMALL);
    assertNotNull(r, "a victim while inserting block " + blockOffset);
    assertFalse(r.rebalance);
    for (long v : r.victims) {
      a.free(v);
    }
    return insert(a, blockOffset);
  }

  private static boolean holds(SlabAllocator a, long h, long blockOffset) {
    return SlotState.isLive(a.state(h)) && a.blockOffset(h) == blockOffset;
  }

  /** Slots of class SMALL whose state word says protected, counted from the records. */
  private static int protectedInRecords(SlabAllocator a) {
    int n = 0;
    for (Slab s : a.byClass.get(SMALL)) {
      for (int slot = 0; slot < s.slots; slot++) {
        int st = s.state(slot);
        if (SlotState.isLive(st) && SlotState.isProtected(st)) {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * Sixteen blocks read twice, then a stream of 2,000 new blocks never read again (a scan) runs
   * through the class's other 48 slots: with a protected segment every one of the sixteen is
   * still there; with one plain CLOCK (0 %) the sweep aged them out within three turns.
   */
  @Test
  void blocksReadTwice_surviveASweepOfNewBlocks_thatPlainClockAgesThemOutBy() {
    for (int percent : new int[] {80, 0}) {
      SlabAllocator a = allocator(1, percent);
      List<Long> hot = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        long h = insert(a, i);
        if (i < 16) {
          hit(a, h);
          hit(a, h);
          hot.add(h);
        }
      }
      for (int i = 0; i < 2000; i++) {
        churn(a, 1000 + i);
      }
      int kept = 0;
      for (int i = 0; i < hot.size(); i++) {
        kept += holds(a, hot.get(i), i) ? 1 : 0;
      }
      if (percent == 80) {
        assertEquals(16, kept, "protected blocks are passed, not aged, by the eviction hand");
        assertEquals(16, a.protectedSlots[SMALL]);
        assertEquals(16, a.occupancy().protectedSlots(SMALL), "the snapshot the metrics read");
      } else {
        assertEquals(0, kept, "one plain CLOCK ages every block it passes");
        assertEquals(0, a.protectedSlots[SMALL]);
      }
    }
  }

  /** A block read once between two visits is evicted as plain CLOCK would: it is not promoted. */
  @Test
  void blockReadOnce_staysOnProbation() {
    SlabAllocator a = allocator(1, 80);
    long once = insert(a, 0);
    hit(a, once);
    for (int i = 1; i < 64; i++) {
      insert(a, i);
    }
    for (int i = 0; i < 200; i++) {
      churn(a, 1000 + i);
    }
    assertFalse(holds(a, once, 0), "a single repeat read survives one pass, not a sweep");
    assertEquals(0, a.protectedSlots[SMALL]);
  }

  /**
   * Every block read twice, again and again: the segment never holds more than its cap, the
   * eviction still finds a victim each time (the segment's own CLOCK demotes blocks to make room),
   * and the count always matches the records.
   */
  @Test
  void segmentKeepsToItsCap_andItsCountMatchesTheRecords() {
    long seed = 20261129L;
    Random rnd = new Random(seed);
    SlabAllocator a = allocator(1, 50);
    List<Long> live = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      live.add(insert(a, i));
    }
    for (int step = 0; step < 3000; step++) {
      String where = "seed " + seed + ", step " + step;
      for (int k = 0; k < 8; k++) {
        long h = live.get(rnd.nextInt(live.size()));
        if (a.pin(h)) {
          a.unpin(h);
        }
      }
      SlabAllocator.Reclaim r = a.reclaim(SMALL);
      assertNotNull(r, where);
      long v = r.victims[0];
      assertFalse(SlotState.isProtected(a.state(v)), where + ": the victim is on probation");
      live.remove(v);
      a.free(v);
      live.add(insert(a, 1000 + step));
      assertTrue(a.protectedSlots[SMALL] <= 32, where + ": " + a.protectedSlots[SMALL]);
      assertEquals(protectedInRecords(a), a.protectedSlots[SMALL], where);
    }
    assertTrue(a.protectedSlots[SMALL] > 0, "repeat readers fill the segment");
  }

  /**
   * Protected blocks leave the count however they go: removed one by one (a file evicted), with
   * a reader still pinning one (freed at its release), and the slab then returns to the pool.
   */
  @Test
  void removingProtectedBlocks_releasesTheirCount_alsoWhenFreedByTheLastReader() {
    SlabAllocator a = allocator(1, 80);
    List<Long> all = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      long h = insert(a, i);
      hit(a, h);
      hit(a, h);
      all.add(h);
    }
    churn(a, 1000); // the hand promotes the blocks read twice as it looks for a victim
    int promoted = a.protectedSlots[SMALL];
    assertEquals(51, promoted, "80 % of 64 slots");
    assertEquals(promoted, protectedInRecords(a));
    long pinned = -1;
    for (long h : all) {
      if (SlotState.isProtected(a.state(h))) {
        pinned = h;
        break;
      }
    }
    assertTrue(a.pin(pinned));
    for (Slab s : a.byClass.get(SMALL)) {
      for (int slot = 0; slot < s.slots; slot++) {
        if (SlotState.isLive(s.state(slot))) {
          a.free(Handles.of(s.index, slot));
        }
      }
    }
    assertEquals(1, a.protectedSlots[SMALL], "the pinned block counts until its release");
    a.unpin(pinned);
    assertEquals(0, a.protectedSlots[SMALL]);
    assertTrue(a.byClass.get(SMALL).isEmpty(), "the empty slab went back to the pool");
  }

  /** Lowering the share online: the eviction hand ages the segment down to the new cap. */
  @Test
  void lowerShare_isReachedAsTheHandPasses() {
    SlabAllocator a = allocator(1, 80);
    for (int i = 0; i < 64; i++) {
      long h = insert(a, i);
      hit(a, h);
      hit(a, h);
    }
    churn(a, 1000);
    assertEquals(51, a.protectedSlots[SMALL]);
    a.setProtectedPercent(25);
    for (int i = 0; i < 400; i++) {
      churn(a, 2000 + i);
    }
    assertTrue(a.protectedSlots[SMALL] <= 16, "cap 16: " + a.protectedSlots[SMALL]);
    assertEquals(protectedInRecords(a), a.protectedSlots[SMALL]);
  }

  @Test
  void setProtectedPercent_outsideZeroToNinetyFive_isRefused() {
    SlabAllocator a = allocator(1, 80);
    assertThrows(IllegalArgumentException.class, () -> a.setProtectedPercent(96));
    assertThrows(IllegalArgumentException.class, () -> a.setProtectedPercent(-1));
    assertEquals(80, a.protectedPercent());
  }

  /** A guest class's blocks live in its host's slots and count in the host's segment. */
  @Test
  void guestBlocks_countInTheHostsSegment() {
    SlabAllocator a = allocator(1, 80);
    List<Long> large = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      long h = insert(a, LARGE, i);
      hit(a, h);
      hit(a, h);
      large.add(h);
    }
    SlabAllocator.Reclaim r = a.reclaim(SMALL); // a guest of the full large class
    assertNotNull(r);
    assertEquals(LARGE, a.classOf(r.victims[0]));
    assertEquals(0, a.protectedSlots[SMALL]);
    assertEquals(12, a.protectedSlots[LARGE], "80 % of 16 slots");
    for (long h : large) {
      a.free(h);
    }
    assertEquals(0, a.protectedSlots[LARGE]);
  }
}
