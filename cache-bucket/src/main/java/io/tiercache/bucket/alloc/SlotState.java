/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

/**
 * The state word of a slot record ({@link Slab}, bytes 0..3), changed only by CAS:
 * <pre>
 *   31         30        29          28                                 0
 *   +----------+---------+-----------+----------------------------------+
 *   |ALLOCATED | EVICTED | PUBLISHED |        pin count (PINS)          |
 *   +----------+---------+-----------+----------------------------------+
 * </pre>
 * 0 is a free slot. See {@link Slab} for the life cycle.
 *
 * <p>Constants and pure functions; thread safe.
 */
public final class SlotState {
  public static final int ALLOCATED = 1 << 31;
  public static final int EVICTED = 1 << 30;
  public static final int PUBLISHED = 1 << 29;
  /** Mask of the pin count (also its saturation value). */
  public static final int PINS = PUBLISHED - 1;

  private SlotState() {}

  /** Whether a state word is that of a published slot: allocated, published, not evicted. */
  public static boolean isLive(int state) {
    return (state & (ALLOCATED | PUBLISHED | EVICTED)) == (ALLOCATED | PUBLISHED);
  }

  /** Whether a reader holds the slot pinned. */
  public static boolean isPinned(int state) {
    return (state & PINS) != 0;
  }
}
