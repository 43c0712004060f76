/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

/**
 * A slot handle names one slot of one slab in a single {@code long}:
 * <pre>
 *   63                      32 31                       0
 *   +-------------------------+-------------------------+
 *   |       slab index        |       slot index        |
 *   +-------------------------+-------------------------+
 * </pre>
 * {@link #NONE} (-1) means "no slot".
 */
public final class Handles {
  public static final long NONE = -1L;
  static final int SLAB_SHIFT = 32;
  static final long SLOT_MASK = 0xFFFF_FFFFL;

  private Handles() {}

  public static long of(int slab, int slot) {
    return ((long) slab << SLAB_SHIFT) | (slot & SLOT_MASK);
  }

  public static int slab(long handle) {
    return (int) (handle >>> SLAB_SHIFT);
  }

  public static int slot(long handle) {
    return (int) (handle & SLOT_MASK);
  }

  public static String toString(long handle) {
    return handle == NONE ? "none" : slab(handle) + ":" + slot(handle);
  }
}
