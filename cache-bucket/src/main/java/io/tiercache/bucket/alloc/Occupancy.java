/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import java.util.Locale;

/**
 * A snapshot of how the L2's slabs are used, per size class: slabs held, slots used, and the two
 * kinds of waste. <em>Slot waste</em> is free slots in slabs a class holds (memory a class took
 * but does not use); <em>utilisation</em> is the share of all slab memory in used slots.
 */
public final class Occupancy {
  private final SizeClasses classes;
  private final int slabSize;
  private final int totalSlabs;
  private final int freeSlabs;
  private final int[] slabs;
  private final long[] usedSlots;
  private final long[] slots;
  private final int[] protectedSlots;

  Occupancy(SizeClasses classes, int slabSize, int totalSlabs, int freeSlabs, int[] slabs,
      long[] usedSlots, long[] slots, int[] protectedSlots) {
    this.classes = classes;
    this.slabSize = slabSize;
    this.totalSlabs = totalSlabs;
    this.freeSlabs = freeSlabs;
    this.slabs = slabs;
    this.usedSlots = usedSlots;
    this.slots = slots;
    this.protectedSlots = protectedSlots;
  }

  /** Bytes of one slab. */
  public int slabSize() {
    return slabSize;
  }

  /** Size classes (indexes 0 to count - 1). */
  public int classCount() {
    return slabs.length;
  }

  /** Slot size of a size class, in bytes. */
  public int classSize(int sizeClass) {
    return classes.size(sizeClass);
  }

  public int totalSlabs() {
    return totalSlabs;
  }

  public int freeSlabs() {
    return freeSlabs;
  }

  public int slabs(int sizeClass) {
    return slabs[sizeClass];
  }

  public long usedSlots(int sizeClass) {
    return usedSlots[sizeClass];
  }

  public long slots(int sizeClass) {
    return slots[sizeClass];
  }

  /** Blocks of the class in its CLOCK's protected segment ({@code evict.Clock}). */
  public int protectedSlots(int sizeClass) {
    return protectedSlots[sizeClass];
  }

  /** Bytes in used slots (slot sizes, not block lengths). */
  public long usedBytes() {
    long n = 0;
    for (int c = 0; c < slabs.length; c++) {
      n += usedSlots[c] * classes.size(c);
    }
    return n;
  }

  /** Share of all slab memory that is in used slots, 0.0 to 1.0. */
  public double utilisation() {
    return (double) usedBytes() / ((long) totalSlabs * slabSize);
  }

  /** Share of a class's slots that are free (taken by the class, unused). */
  public double slotWaste(int sizeClass) {
    return slots[sizeClass] == 0 ? 0 : 1.0 - (double) usedSlots[sizeClass] / slots[sizeClass];
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
        "slabs %d (free %d), utilisation %.1f%%", totalSlabs, freeSlabs, 100 * utilisation()));
    for (int c = 0; c < slabs.length; c++) {
      if (slabs[c] > 0) {
        sb.append(String.format(Locale.ROOT, "; %dK: %d slabs %d/%d slots", classes.size(c) / 1024,
            slabs[c], usedSlots[c], slots[c]));
      }
    }
    return sb.toString();
  }
}
