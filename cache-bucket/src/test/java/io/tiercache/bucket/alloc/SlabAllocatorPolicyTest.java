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

/** Eviction and rebalancing decisions of {@link SlabAllocator}: CLOCK start values, slab moves. */
class SlabAllocatorPolicyTest {
  private static final int KB = 1024;
  private static final int MB = 1 << 20;
  private static final int SMALL = 0; // 16 KB slots, 64 per 1 MB slab
  private static final int LARGE = 1; // 64 KB slots, 16 per slab

  private static SlabAllocator allocator(int slabCount) {
    return new SlabAllocator(new SizeClasses(new int[] {16 * KB, 64 * KB}, MB),
        (long) slabCount * MB, MB);
  }

  private static List<Long> fill(SlabAllocator a, int c, int n) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long h = a.allocate(c);
      assertNotEquals(Handles.NONE, h, "allocation " + i + " of class " + c);
      a.describe(h, meta(1, (long) c << 32 | i, 1000, BlockMeta.F_DATA));
      assertTrue(a.markPublished(h), "publication of " + Handles.toString(h));
      out.add(h);
    }
    return out;
  }

  private static BlockMeta meta(int fileId, long blockOffset, int length, int flags) {
    BlockMeta m = new BlockMeta();
    m.fileId = fileId;
    m.blockOffset = blockOffset;
    m.length = length;
    m.flags = flags;
    return m;
  }

  /**
   * A reader's hit: publishes the slot (as a writer would have) and pins it, which counts the
   * access (CLOCK frequency, slab recency), then unpins it.
   */
  private static void hit(SlabAllocator a, long h) {
    a.markPublished(h);
    assertTrue(a.pin(h), "pin of " + Handles.toString(h));
    a.unpin(h);
  }

  /** Lets System.nanoTime() move on, so that later accesses are strictly more recent. */
  private static void tick() {
    long t = System.nanoTime();
    while (System.nanoTime() == t) {
      Thread.onSpinWait();
    }
  }

  @Test
  void describe_singleAccessBlock_startsAtZero_inMemoryAtThree_hitsRaiseToThree() {
    SlabAllocator a = allocator(1);
    long single = a.allocate(SMALL);
    long memory = a.allocate(SMALL);
    a.describe(single, meta(1, 0, 100, BlockMeta.F_DATA));
    a.describe(memory, meta(1, 1, 100, BlockMeta.F_IN_MEMORY));
    assertEquals(0, a.freq(single), "a block nobody read yet is the first the hand takes");
    assertEquals(3, a.freq(memory));
    for (int hit = 1; hit <= 4; hit++) {
      hit(a, single);
      assertEquals(Math.min(hit, 3), a.freq(single));
    }
  }

  @Test
  void reclaim_clockTakesTheUnreadBlock_beforeOneReadOnce() {
    SlabAllocator a = allocator(1);
    List<Long> small = fill(a, SMALL, 64);
    for (int i = 0; i < 63; i++) {
      hit(a, small.get(i));
    }
    SlabAllocator.Reclaim r = a.reclaim(SMALL);
    assertNotNull(r);
    assertFalse(r.rebalance);
    assertEquals(1, r.victims.length);
    assertEquals((long) small.get(63), r.victims[0]);
  }

  @Test
  void reclaim_needyClass_drainsADonorSlabOnlyWhenItIsColderThanEveryNeedySlab() {
    SlabAllocator a = allocator(4);
    List<Long> small = fill(a, SMALL, 128); // two slabs of 16 KB slots
    List<Long> large = fill(a, LARGE, 32); // two slabs of 64 KB slots: no free slab left
    for (int i = 0; i < 200; i++) {
      assertEquals(Handles.NONE, a.allocate(LARGE)); // demand shifts to the large class
    }
    tick();
    small.forEach(h -> hit(a, h)); // the small class is read all the time: hotter than the large one

    SlabAllocator.Reclaim hot = a.reclaim(LARGE);
    assertNotNull(hot);
    assertFalse(hot.rebalance, "a hot donor keeps its slabs; the needy class evicts its own");
    assertEquals(LARGE, a.classOf(hot.victims[0]));

    tick();
    large.forEach(h -> hit(a, h)); // now every large slab is more recent than any small one
    SlabAllocator.Reclaim cold = a.reclaim(LARGE);
    assertNotNull(cold);
    assertTrue(cold.rebalance, "a donor colder than every needy slab is drained");
    assertEquals(64, cold.victims.length);
    for (long v : cold.victims) {
      assertEquals(SMALL, a.classOf(v));
    }
  }

  /**
   * Slabs follow hits: a class whose one slab serves every hit takes a slab from a class that is
   * inserted into far more but never read; with the hits' weight at 0 (slabs follow the insert
   * bytes, as before) the same class evicts its own block instead.
   */
  @Test
  void reclaim_classServingTheHits_takesASlabFromOneOnlyInsertedInto_unlessHitsWeighNothing() {
    for (int percent : new int[] {100, 0}) {
      SlabAllocator a = allocator(4);
      a.setHitPercent(percent);
      List<Long> small = fill(a, SMALL, 64); // one slab
      fill(a, LARGE, 48); // three slabs: none free
      tick();
      for (int round = 0; round < 10; round++) {
        small.forEach(h -> hit(a, h));
      }
      for (int i = 0; i < 300; i++) { // the large class keeps asking; its demand is counted
        assertEquals(Handles.NONE, a.allocate(LARGE));
      }
      SlabAllocator.Reclaim r = a.reclaim(SMALL);
      assertNotNull(r);
      if (percent == 100) {
        assertTrue(r.rebalance, "the unread large class gives a slab to the read one");
        assertEquals(16, r.victims.length);
        for (long v : r.victims) {
          assertEquals(LARGE, a.classOf(v));
        }
      } else {
        assertFalse(r.rebalance, "by insert bytes the small class holds its share already");
        assertEquals(1, r.victims.length);
        assertEquals(SMALL, a.classOf(r.victims[0]));
      }
    }
  }

  @Test
  void setHitPercent_outsideZeroToHundred_isRefused() {
    SlabAllocator a = allocator(1);
    assertThrows(IllegalArgumentException.class, () -> a.setHitPercent(101));
    assertThrows(IllegalArgumentException.class, () -> a.setHitPercent(-1));
  }

  @Test
  void allocate_classWithoutASlab_whenNoSlabIsFree_takesASlotOfTheNextLargerClass() {
    SlabAllocator a = allocator(2);
    List<Long> large = fill(a, LARGE, 17); // one slab full, the other holds one block
    long guest = a.allocate(SMALL);
    assertNotEquals(Handles.NONE, guest, "a free 64 KB slot takes the 16 KB block");
    assertEquals(LARGE, a.classOf(guest));
    assertEquals(Handles.slab(large.get(16)), Handles.slab(guest));
    assertEquals(a.address(large.get(16)) + 64 * KB, a.address(guest),
        "spaced as its host's slots");
    assertEquals(18, a.occupancy().usedSlots(LARGE), "17 large blocks and the guest");

    fill(a, LARGE, 14); // the large class is full now
    SlabAllocator.Reclaim r = a.reclaim(SMALL);
    assertNotNull(r);
    assertFalse(r.rebalance, "a class inserted into this rarely evicts in its host, never drains");
    assertEquals(1, r.victims.length);
    assertEquals(LARGE, a.classOf(r.victims[0]));
  }

  /**
   * A class inserted into rarely that keeps a slab for a handful of hot blocks (one index block
   * held a whole slab in {@code real-hbase}) gives it up to a class that must evict, however
   * recently its blocks were read; its blocks then live in the larger class's slots, and the two
   * classes do not trade the slab back and forth.
   */
  @Test
  void reclaim_sparseSlabOfARarelyInsertedClass_isDrainedThoughItIsTheHottest() {
    SlabAllocator a = allocator(4);
    long index = fill(a, SMALL, 1).get(0);
    fill(a, LARGE, 48); // three slabs: none free
    for (int i = 0; i < 200; i++) {
      assertEquals(Handles.NONE, a.allocate(LARGE)); // the large class keeps asking
    }
    tick();
    hit(a, index); // the small slab is the most recent of all

    SlabAllocator.Reclaim r = a.reclaim(LARGE);
    assertNotNull(r);
    assertTrue(r.rebalance, "the sparse slab is drained for the class that must evict");
    assertEquals(1, r.victims.length);
    assertEquals(index, r.victims[0]);
    a.free(index);
    assertEquals(1, a.occupancy().freeSlabs());
    long taken = a.allocate(LARGE);
    assertEquals(LARGE, a.classOf(taken));
    a.describe(taken, meta(1, 999, 1000, BlockMeta.F_DATA));
    assertTrue(a.markPublished(taken));

    long back = a.allocate(SMALL); // the index block comes back: a guest in the new slab
    assertEquals(LARGE, a.classOf(back));
    assertEquals(Handles.slab(taken), Handles.slab(back));
    a.describe(back, meta(1, 1000, 1000, BlockMeta.F_DATA));
    assertTrue(a.markPublished(back));
    fill(a, LARGE, 14);
    for (int i = 0; i < 20; i++) { // a small block for every three large ones
      int c = i % 4 == 0 ? SMALL : LARGE;
      SlabAllocator.Reclaim again = a.reclaim(c);
      assertNotNull(again);
      assertFalse(again.rebalance, "no slab moves back and forth, round " + i);
      for (long v : again.victims) {
        a.free(v);
      }
      assertNotEquals(Handles.NONE, a.allocate(c), "round " + i);
    }
  }

  /**
   * The admission filter's lock-free victim hint answers as a look under the lock would, after
   * every kind of change: allocations, publications, CLOCK evictions, frees, hits, drains of a
   * slab for the other class and a slab going back to the free pool. Exactly whether the class
   * can take a block without evicting; otherwise a published slot as cheap to evict (CLOCK
   * frequency, pins) as the slot the look under the lock names.
   */
  @Test
  void admissionVictim_lockFreeHint_answersAsTheLookUnderTheLock() {
    hintMatchesTheLookUnderTheLock(20261126L, 1); // mostly small blocks: both classes own slabs
    hintMatchesTheLookUnderTheLock(20261127L, 3); // mostly large: the small class is often a guest
  }

  private static void hintMatchesTheLookUnderTheLock(long seed, int largeInFour) {
    Random rnd = new Random(seed);
    SlabAllocator a = allocator(4);
    List<Long> live = new ArrayList<>();
    for (int step = 0; step < 20_000; step++) {
      int c = rnd.nextInt(4) < largeInFour ? LARGE : SMALL;
      int op = rnd.nextInt(10);
      if (op < 4) { // a writer: allocate (evicting by CLOCK or draining if full), then publish
        long h = a.allocate(c);
        if (h == Handles.NONE) {
          SlabAllocator.Reclaim r = a.reclaim(c);
          if (r != null) {
            for (long v : r.victims) {
              live.remove(v);
              a.free(v);
            }
          }
          h = a.allocate(c);
        }
        if (h != Handles.NONE) {
          a.describe(h, meta(1, step, 1000, BlockMeta.F_DATA));
          if (a.markPublished(h)) {
            live.add(h);
          } else {
            a.free(h);
          }
        }
      } else if (op < 8 && !live.isEmpty()) { // a reader's hit
        long h = live.get(rnd.nextInt(live.size()));
        if (a.pin(h)) {
          a.unpin(h);
        }
      } else if (!live.isEmpty()) { // a removal (file evicted, block replaced)
        a.free(live.remove(rnd.nextInt(live.size())));
      }
      for (int k = SMALL; k <= LARGE; k++) {
        long hint = a.admissionVictim(k);
        long now = a.admissionVictimNow(k);
        String where = "seed " + seed + ", step " + step + ", class " + k + ": hint "
            + Handles.toString(hint) + ", under the lock " + Handles.toString(now);
        assertEquals(now == SlabAllocator.NO_VICTIM, hint == SlabAllocator.NO_VICTIM, where);
        assertEquals(now == Handles.NONE, hint == Handles.NONE, where);
        if (now >= 0) {
          assertTrue(SlotState.isLive(a.state(hint)), where);
          assertEquals(cost(a, now), cost(a, hint), where);
        }
      }
    }
  }

  /** What {@code Clock.peek} ranks a slot by: its frequency, plus 4 if a reader pins it. */
  private static int cost(SlabAllocator a, long h) {
    return a.freq(h) + (a.pins(h) > 0 ? 4 : 0);
  }
}
