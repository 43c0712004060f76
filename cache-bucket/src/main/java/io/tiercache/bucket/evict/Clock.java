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
 * <h2>The protected segment</h2>
 * One CLOCK ages every block at the rate blocks are inserted: when a scan floods the class, the
 * hand turns fast and a block read many times, but not on every turn, is aged out with the
 * scan's. So the class is split as a segmented LRU (and Caffeine's main space) is: a block the
 * hand finds read at least {@link #PROMOTE_FREQ} times since its last visit is promoted into a
 * <em>protected</em> segment of at most {@code protectedCap()} slots (the state word's
 * PROTECTED bit); the eviction hand passes protected blocks untouched and evicts only
 * probationary ones. When the segment is full, a promotion first demotes one block by the
 * segment's own hand ({@link #demote}), which turns only as blocks are promoted: it decrements
 * the protected frequencies it passes and demotes the first at zero back to probation, where the
 * eviction hand finds it. A segment over its cap (a lower share set, slabs gone to another class)
 * is aged by the eviction hand as it passes. With a cap of 0 the class is one plain CLOCK.
 * Measured in docs/benchmarks.md ("A protected segment in the L2's CLOCK").
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
   * The frequency at which the hand promotes a probationary block: read twice since the hand's
   * last visit. Measured on the showdown's {@code scan-64k-3x} (two scanners a gap apart over
   * zipfian reads), 80 % protected: at 1 the scan blocks the second scanner re-reads once took the
   * segment and the zipfian reads fell 1.1 pt under plain CLOCK's (500 us misses); at 3 the cell
   * gained nothing; 2 kept the zipfian reads and the scan reads both.
   */
  static final int PROMOTE_FREQ = 2;

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

    /** The slab (modulo {@link #slabs}) that hand {@code hand} (EVICT, DEMOTE) is at. */
    int slabHand(int hand);

    void slabHand(int hand, int position);

    /** Slots of the slab at {@code position} (0 for a slab no longer in the class). */
    int slots(int position);

    /** Whether the slab at {@code position} is being drained (CLOCK skips it). */
    boolean draining(int position);

    /** Where hand {@code hand} is within the slab at {@code position}. */
    int slotHand(int hand, int position);

    void slotHand(int hand, int position, int slot);

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

    /** Told, once per {@link #victim} call, how many slots the hand visited (eviction work). */
    void examined(int slots);

    /** Whether {@code state} is that of a block in the protected segment. */
    boolean isProtected(int state);

    /** Blocks of the class in its protected segment. */
    int protectedSlots();

    /** How many blocks the protected segment may hold: a share of the class's slots. */
    int protectedCap();

    /** Moves the slot's block into ({@code true}) or out of the protected segment. */
    void protect(int position, int slot, boolean on);
  }

  /** The eviction hand: evicts probationary blocks, promotes those read twice. */
  public static final int EVICT = 0;
  /** The protected segment's hand: demotes blocks to probation ({@link #demote}). */
  public static final int DEMOTE = 1;

  /**
   * Moves hand {@code hand} one step: returns the slot it looks at, as
   * {@code position << 32 | slot}, or -1 if the step took it on to the next slab (past the end
   * of one, or off a draining one).
   */
  private static long step(ClassSlots c, int hand, int slabs) {
    int si = c.slabHand(hand) % slabs;
    int slot = c.slotHand(hand, si);
    if (slot >= c.slots(si) || c.draining(si)) {
      c.slotHand(hand, si, 0);
      c.slabHand(hand, si + 1);
      return -1;
    }
    c.slotHand(hand, si, slot + 1);
    return (long) si << 32 | slot;
  }

  /**
   * Moves the hand to the class's next probationary slot at frequency zero, unpinned first;
   * on its way it promotes the probationary blocks read since its last pass into the protected
   * segment (demoting one there by {@link #demote} when the segment is full) and passes the
   * protected ones untouched while the segment is within its cap. Returns the victim's handle,
   * a pinned one if every candidate was pinned, or {@link #NONE} if the class holds no
   * published probationary slot.
   */
  public static long victim(ClassSlots c) {
    int slabs = c.slabs();
    if (slabs == 0) {
      return NONE;
    }
    long pinnedCandidate = NONE;
    int slotsInClass = slabs * c.slotsPerSlab();
    int visited = 0;
    try {
      for (int step = 0; step < 4 * slotsInClass + slabs; step++) {
        long at = step(c, EVICT, slabs);
        if (at < 0) {
          continue;
        }
        int si = (int) (at >>> 32);
        int hand = (int) at;
        visited++;
        int st = c.state(si, hand);
        if (!c.isPublished(st)) {
          continue; // free, evicted, or still its writer's
        }
        int f = c.freq(si, hand);
        if (c.isProtected(st)) {
          if (c.protectedSlots() > c.protectedCap()) { // the class shrank: age it here
            ageProtected(c, si, hand, f);
          }
          continue;
        }
        if (f > 0) {
          int cap = c.protectedCap();
          if (f >= PROMOTE_FREQ && cap > 0 && (c.protectedSlots() < cap || demote(c))) {
            c.protect(si, hand, true);
          }
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
    } finally {
      c.examined(visited);
    }
  }

  /** One look of a hand at a protected slot: a hit since the last look, or demotion. */
  private static boolean ageProtected(ClassSlots c, int si, int slot, int f) {
    if (f > 0) {
      c.freq(si, slot, f - 1);
      return false;
    }
    c.protect(si, slot, false);
    return true;
  }

  /**
   * Moves the demotion hand to the next protected block at frequency zero and demotes it to
   * probation, decrementing the protected frequencies it passes: the protected segment's own
   * CLOCK, which turns only as blocks are promoted into it. False if none was found within four
   * rotations (the segment is empty).
   */
  static boolean demote(ClassSlots c) {
    int slabs = c.slabs();
    int visited = 0;
    try {
      for (int step = 0; step < 4 * slabs * c.slotsPerSlab() + slabs; step++) {
        long at = step(c, DEMOTE, slabs);
        if (at < 0) {
          continue;
        }
        int si = (int) (at >>> 32);
        int hand = (int) at;
        visited++;
        int st = c.state(si, hand);
        if (c.isPublished(st) && c.isProtected(st)
            && ageProtected(c, si, hand, c.freq(si, hand))) {
          return true;
        }
      }
      return false;
    } finally {
      c.examined(visited);
    }
  }

  /**
   * The slot {@link #victim} would likely take next: the first published probationary slot
   * ahead of the hand at frequency 0 and unpinned, looking at most {@value #LOOKAHEAD} of them
   * ahead (within {@code 8 × LOOKAHEAD} slots, as protected ones are passed), else the least
   * frequent of them (a pinned one counting as 4 more); {@link #NONE} if none of them is
   * published. Moves no hand and changes no frequency.
   */
  public static long peek(ClassSlots c) {
    int slabs = c.slabs();
    int si = c.slabHand(EVICT) % slabs;
    int slot = c.slotHand(EVICT, si);
    long best = NONE;
    int bestFreq = Integer.MAX_VALUE;
    for (int seen = 0, step = 0; seen < LOOKAHEAD && step < 8 * LOOKAHEAD + slabs; step++) {
      if (slot >= c.slots(si) || c.draining(si)) {
        si = (si + 1) % slabs;
        slot = c.slotHand(EVICT, si);
        continue;
      }
      int st = c.state(si, slot);
      if (c.isPublished(st) && !c.isProtected(st)) {
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
