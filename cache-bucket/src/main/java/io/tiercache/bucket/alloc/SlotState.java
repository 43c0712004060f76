/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

/**
 * The state word of a slot record ({@link Slab}, bytes 0..3), changed only by CAS:
 * <pre>
 *   31         30        29          28  27 26     24   23      22                 0
 *   +----------+---------+-----------+------+--------+---------+-------------------+
 *   |ALLOCATED | EVICTED | PUBLISHED | FREQ | FLAGS  |PROTECTED| pin count (PINS)  |
 *   +----------+---------+-----------+------+--------+---------+-------------------+
 * </pre>
 * 0 is a free slot. See {@link Slab} for the life cycle. FREQ is the CLOCK frequency (0..3),
 * raised by a reader's pin in the same CAS, so a hit writes nothing else; FLAGS are the block's
 * {@code BlockMeta.F_*} bits (in-memory, data, verified); PROTECTED marks a block in its class's
 * protected segment ({@code evict.Clock}), set and cleared under the allocator's lock. A pin
 * count at PINS (8,388,607) refuses further pins (the read is then a miss), it never overflows
 * into PROTECTED.
 *
 * <p>Constants and pure functions; thread safe.
 */
public final class SlotState {
  public static final int ALLOCATED = 1 << 31;
  public static final int EVICTED = 1 << 30;
  public static final int PUBLISHED = 1 << 29;
  static final int FREQ_SHIFT = 27;
  static final int FREQ = 3 << FREQ_SHIFT;
  static final int FLAGS_SHIFT = 24;
  static final int FLAGS = 7 << FLAGS_SHIFT;
  /** The block is in its class's protected segment. */
  public static final int PROTECTED = 1 << 23;
  /** Mask of the pin count (also its saturation value). */
  public static final int PINS = PROTECTED - 1;

  /** The CLOCK frequency of a state word. */
  public static int freq(int state) {
    return (state & FREQ) >>> FREQ_SHIFT;
  }

  /** The {@code BlockMeta.F_*} flags of a state word. */
  public static int flags(int state) {
    return (state & FLAGS) >>> FLAGS_SHIFT;
  }

  private SlotState() {}

  /** Whether a state word is that of a published slot: allocated, published, not evicted. */
  public static boolean isLive(int state) {
    return (state & (ALLOCATED | PUBLISHED | EVICTED)) == (ALLOCATED | PUBLISHED);
  }

  /** Whether the block is in its class's protected segment. */
  public static boolean isProtected(int state) {
    return (state & PROTECTED) != 0;
  }

  /** Whether a reader holds the slot pinned. */
  public static boolean isPinned(int state) {
    return (state & PINS) != 0;
  }
}
