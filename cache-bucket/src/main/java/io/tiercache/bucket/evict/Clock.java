/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.evict;

/**
 * CLOCK victim choice within one size class: which of its own blocks a class gives up when it
 * must evict (the allocator decides whether to evict in class or to drain a slab of another
 * class, see {@code alloc.SlabAllocator#reclaim}).
 *
 * <h2>The policy</h2>
 * Each slot has a 2-bit frequency: 0 when a single-access block is written, 3 for in-memory
 * (index, bloom, {@code IN_MEMORY}) blocks, raised by one per hit up to 3. The hand walks the
 * class's slabs in turn, slot by slot; it skips and decrements non-zero slots and evicts the
 * first at zero, preferring slots no reader has pinned. A block never read after it was written
 * thus leaves at the hand's first pass, as HBase's single-access blocks go first, while a block
 * read once survives a pass without further hits. The hand visits at most four rotations of one
 * class, so the work per request is bounded by the class's slots, never by the whole cache.
 *
 * <p>{@link #peek} is the admission filter's look-ahead: the slot the next eviction would likely
 * take, without moving the hand or changing a frequency.
 *
 * <h2>Concurrency</h2>
 * Stateless; the caller holds the allocator's lock, which guards the hands the view exposes.
 * Frequencies are racy hints (hits raise them without the lock).
 */
public final class Clock {
  /** Slots {@link #peek} looks at ahead of the hand. */
  public static final int LOOKAHEAD = 32;
  /** No slot: the allocator's {@code Handles.NONE}. */
  public static final long NONE = -1L;

  private Clock() {}

  /**
   * What CLOCK sees of one size class: its slabs by position ({@code 0..slabs()-1}), their
   * slots, the hands, and each slot's state word and frequency. Implemented by the allocator
   * (so this package does not depend on its record layout), valid under its lock.
   */
  public interface ClassSlots {
    /** Slabs the class holds. */
    int slabs();

    /** Slots in a slab of this class. */
    int slotsPerSlab();

    /** The slab hand: which slab (modulo {@link #slabs}) the slot hand is in. */
    int slabHand();

    void slabHand(int position);

    /** Slots of the slab at {@code position} (0 for a slab no longer in the class). */
    int slots(int position);

    /** Whether the slab at {@code position} is being drained (CLOCK skips it). */
    boolean draining(int position);

    /** The slot hand of the slab at {@code position}. */
    int slotHand(int position);

    void slotHand(int position, int slot);

    /** The slot's state word, read once per look (pins change concurrently). */
    int state(int position, int slot);

    /** Whether {@code state} is a live published block (not free, evicted or its writer's). */
    boolean isPublished(int state);

    /** Whether {@code state} has a reader's pin. */
    boolean isPinned(int state);

    int freq(int position, int slot);

    void freq(int position, int slot, int freq);

    /** The slot's handle ({@code alloc.Handles}). */
    long handle(int position, int slot);
  }

  /**
   * Moves the hand to the class's next slot at frequency zero, unpinned first, decrementing the
   * frequencies it passes; returns its handle, a pinned one if every candidate was pinned, or
   * {@link #NONE} if the class holds no published slot.
   */
  public static long victim(ClassSlots c) {
    int slabs = c.slabs();
    if (slabs == 0) {
      return NONE;
    }
    long pinnedCandidate = NONE;
    int slotsInClass = slabs * c.slotsPerSlab();
    for (int step = 0; step < 4 * slotsInClass + slabs; step++) {
      int si = c.slabHand() % slabs;
      int hand = c.slotHand(si);
      if (hand >= c.slots(si) || c.draining(si)) {
        c.slotHand(si, 0);
        c.slabHand(si + 1);
        continue;
      }
      c.slotHand(si, hand + 1);
      int st = c.state(si, hand);
      if (!c.isPublished(st)) {
        continue; // free, evicted, or still its writer's
      }
      int f = c.freq(si, hand);
      if (f > 0) {
        c.freq(si, hand, f - 1);
        continue;
      }
      if (!c.isPinned(st)) {
        return c.handle(si, hand);
      }
      if (pinnedCandidate == NONE) {
        pinnedCandidate = c.handle(si, hand);
      }
    }
    return pinnedCandidate;
  }

  /**
   * The slot {@link #victim} would likely take next: the first published slot ahead of the hand
   * at frequency 0 and unpinned, looking at most {@value #LOOKAHEAD} published slots ahead, else
   * the least frequent of them (a pinned one counting as 4 more); {@link #NONE} if none of
   * them is published. Moves no hand and changes no frequency.
   */
  public static long peek(ClassSlots c) {
    int slabs = c.slabs();
    int si = c.slabHand() % slabs;
    int slot = c.slotHand(si);
    long best = NONE;
    int bestFreq = Integer.MAX_VALUE;
    for (int seen = 0, step = 0; seen < LOOKAHEAD && step < 2 * LOOKAHEAD + slabs; step++) {
      if (slot >= c.slots(si) || c.draining(si)) {
        si = (si + 1) % slabs;
        slot = c.slotHand(si);
        continue;
      }
      int st = c.state(si, slot);
      if (c.isPublished(st)) {
        seen++;
        int f = c.freq(si, slot) + (c.isPinned(st) ? 4 : 0);
        if (f == 0) {
          return c.handle(si, slot);
        }
        if (f < bestFreq) {
          bestFreq = f;
          best = c.handle(si, slot);
        }
      }
      slot++;
    }
    return best;
  }
}
