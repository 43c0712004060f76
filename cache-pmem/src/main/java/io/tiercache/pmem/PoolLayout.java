/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import java.util.Arrays;

/**
 * Where everything lies in a pmem pool, computed from the L2's geometry (capacity, slab size,
 * slot sizes), and the pool header that records that geometry.
 *
 * <h2>Memory layout of a pool (native byte order)</h2>
 * <pre>
 *   [0, 4 KB)                    header (below)
 *   [slabMapBase, +slabs × 4)    slab map: per slab, its size class + 1 (0: none yet)
 *   [namesBase, +64 × 128)       deserializer names, append-only ({@link PoolIndex})
 *   [recordsBase, +slabs × recordsPerSlab × 128)
 *                                block records, slab-major ({@link PoolIndex})
 *   [dataBase, +capacity)        the blocks: engine address o is pool offset dataBase + o
 * </pre>
 * Each region starts 4 KB aligned; {@code dataBase} is a multiple of the slab size so that no slab
 * straddles a mapping chunk. {@code recordsPerSlab} is the slot count of the smallest class, the
 * most any slab can have.
 *
 * <h2>Header</h2>
 * <pre>
 *   offset size field
 *     0     8   magic        "TCPMEM01"; written last by a format, so a pool whose format was
 *                            interrupted has none and is formatted again
 *     8     4   version      1
 *    12     4   slabSize
 *    16     8   capacity
 *    24     4   classCount
 *    28     4   recordsPerSlab
 *    32     8   dataBase
 *   128   4 × classCount     slot sizes
 * </pre>
 *
 * <p>Immutable and thread safe.
 */
final class PoolLayout {
  static final long MAGIC = 0x31304D454D504354L; // "TCPMEM01" read as a little-endian long
  static final int VERSION = 1;
  static final int HEADER_SIZE = 4096;
  static final int H_MAGIC = 0;
  static final int H_VERSION = 8;
  static final int H_SLAB_SIZE = 12;
  static final int H_CAPACITY = 16;
  static final int H_CLASS_COUNT = 24;
  static final int H_RECORDS_PER_SLAB = 28;
  static final int H_DATA_BASE = 32;
  static final int H_SLOT_SIZES = 128;

  static final int RECORD = 128;
  static final int NAME_ENTRIES = 64;
  static final int NAME_ENTRY = 128;
  private static final int ALIGN = 4096;

  final long capacity;
  final int slabSize;
  final int[] slotSizes;
  final int slabCount;
  final int recordsPerSlab;
  final long slabMapBase;
  final long namesBase;
  final long recordsBase;
  final long dataBase;
  final long poolSize;

  PoolLayout(long capacity, int slabSize, int[] slotSizes) {
    if (slotSizes.length == 0 || slotSizes.length > 255) {
      throw new IllegalArgumentException("a pool needs 1 to 255 slot sizes, got "
          + slotSizes.length);
    }
    this.capacity = capacity;
    this.slabSize = slabSize;
    this.slotSizes = slotSizes.clone();
    this.slabCount = (int) (capacity / slabSize);
    this.recordsPerSlab = slabSize / slotSizes[0];
    this.slabMapBase = HEADER_SIZE;
    this.namesBase = align(slabMapBase + 4L * slabCount, ALIGN);
    this.recordsBase = align(namesBase + (long) NAME_ENTRIES * NAME_ENTRY, ALIGN);
    long recordsEnd = recordsBase + (long) slabCount * recordsPerSlab * RECORD;
    this.dataBase = align(recordsEnd, slabSize);
    this.poolSize = dataBase + capacity;
  }

  private static long align(long v, long to) {
    return (v + to - 1) / to * to;
  }

  /** Slots of a slab of class {@code c}. */
  int slots(int c) {
    return slabSize / slotSizes[c];
  }

  long slabMapEntry(int slab) {
    return slabMapBase + 4L * slab;
  }

  long nameEntry(int i) {
    return namesBase + (long) i * NAME_ENTRY;
  }

  long record(int slab, int slot) {
    return recordsBase + ((long) slab * recordsPerSlab + slot) * RECORD;
  }

  /** Pool address of slot {@code slot} of {@code slab} in class {@code c}. */
  long slotData(int slab, int slot, int c) {
    return dataBase + (long) slab * slabSize + (long) slot * slotSizes[c];
  }

  /** Writes the header, magic last (the caller flushes before and after, see PoolIndex). */
  void writeHeaderFields(PmemRegion r) {
    r.putInt(H_VERSION, VERSION);
    r.putInt(H_SLAB_SIZE, slabSize);
    r.putLong(H_CAPACITY, capacity);
    r.putInt(H_CLASS_COUNT, slotSizes.length);
    r.putInt(H_RECORDS_PER_SLAB, recordsPerSlab);
    r.putLong(H_DATA_BASE, dataBase);
    for (int c = 0; c < slotSizes.length; c++) {
      r.putInt(H_SLOT_SIZES + 4L * c, slotSizes[c]);
    }
  }

  /** Why the pool in {@code r} cannot be used with this layout, or null if it can. */
  String mismatch(PmemRegion r) {
    if (r.getLong(H_MAGIC) != MAGIC) {
      return "no TierCache pool header (a new pool, another file, or an interrupted format)";
    }
    if (r.getInt(H_VERSION) != VERSION) {
      return "pool layout version " + r.getInt(H_VERSION) + " (now " + VERSION + ")";
    }
    int classes = r.getInt(H_CLASS_COUNT);
    int[] sizes = new int[Math.max(0, Math.min(classes, 255))];
    for (int c = 0; c < sizes.length; c++) {
      sizes[c] = r.getInt(H_SLOT_SIZES + 4L * c);
    }
    long cap = r.getLong(H_CAPACITY);
    int slab = r.getInt(H_SLAB_SIZE);
    if (cap != capacity || slab != slabSize || !Arrays.equals(sizes, slotSizes)
        || r.getInt(H_RECORDS_PER_SLAB) != recordsPerSlab || r.getLong(H_DATA_BASE) != dataBase) {
      return "geometry " + describe(cap, slab, sizes) + " (now " + this + ")";
    }
    return null;
  }

  private static String describe(long capacity, int slabSize, int[] sizes) {
    return "capacity " + capacity + ", slab " + slabSize + ", bucket sizes "
        + Arrays.toString(sizes);
  }

  @Override
  public String toString() {
    return describe(capacity, slabSize, slotSizes);
  }
}
