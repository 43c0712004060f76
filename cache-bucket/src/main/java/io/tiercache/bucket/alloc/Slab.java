/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.bucket.meta.BlockRecord;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One slab of the L2: a fixed range of engine memory cut into equal slots of one size class,
 * with a free-slot bitmap on heap and one 32-byte record per slot off heap.
 *
 * <h2>Memory layout of a slot record (off heap, native byte order)</h2>
 * <pre>
 *   0        4        8                                          28       32
 *   +--------+--------+------------------------------------------+--------+
 *   | state  | fileId |  BlockRecord (20 B; its own byte: freq)  |cachedAt|
 *   +--------+--------+------------------------------------------+--------+
 *
 *   offset size field
 *     0     4   state        SlotState: bit 31 ALLOCATED, bit 30 EVICTED, bit 29 PUBLISHED,
 *                            bits 0-28 pin count (CAS only)
 *     4     4   fileId       FileRegistry id of the HFile
 *     8     8   blockOffset  where the block starts in its HFile       (BlockRecord)
 *    16     4   length       serialized length of the block             (BlockRecord)
 *    20     4   checksum     CRC32C of the serialized bytes             (BlockRecord)
 *    24     1   freq         CLOCK counter 0..3 (racy by design: a hint; BlockRecord.OWN)
 *    25     1   flags        BlockMeta.F_* bits                         (BlockRecord)
 *    26     1   deser        HBase deserializer id                      (BlockRecord)
 *    27     1   type         BlockType ordinal                          (BlockRecord)
 *    28     4   cachedAt     seconds since the tier started
 * </pre>
 * The records of a slab are allocated once, sized for the smallest class, and reused when the
 * slab changes class: at the slab's first {@link #assign}, or before by the tier's background
 * pass ({@link SlabAllocator#allocateRecords}), so building a tier touches no record memory and
 * costs the same at any size; they are freed with the engine's memory when the tier shuts down
 * (a direct buffer, released by the garbage collector's cleaner). A slab without records has
 * never held a slot, so no handle names it.
 *
 * <h2>Slot life cycle (state word)</h2>
 * <ol>
 *   <li>free: 0. {@link SlabAllocator} sets ALLOCATED when it hands the slot to a writer.</li>
 *   <li>published: the writer fills the record and the engine bytes, then, under the key's stripe
 *       lock, sets PUBLISHED ({@link #markPublished}, under the allocator lock, refused while the
 *       slab drains) and puts the handle in the index. Readers {@link #pin} under the index
 *       segment's read lock. A slot ALLOCATED without PUBLISHED belongs to its writer alone: a
 *       drain or the eviction clock never takes it, and its writer either publishes or frees
 *       it.</li>
 *   <li>evicted: the evictor removes the handle from the index (write lock), then
 *       {@link #markEvicted}: with no pins the slot is freed at once, otherwise EVICTED is set
 *       and the last {@link #unpin} frees it. A slot is never reused while pinned.</li>
 * </ol>
 *
 * <h2>Concurrency</h2>
 * {@code sizeClass}, {@code slots}, {@code used} and the bitmap are guarded by the allocator's
 * lock. The state word is changed only by CAS. Other record fields are written by the single
 * writer that owns the slot before it is published, and read after a lookup that synchronised
 * with the publication through the index lock.
 */
final class Slab {
  static final int RECORD = 32;
  private static final int ALLOCATED = SlotState.ALLOCATED;
  private static final int EVICTED = SlotState.EVICTED;
  private static final int PUBLISHED = SlotState.PUBLISHED;
  private static final int PINS = SlotState.PINS;

  private static final int O_STATE = 0;
  private static final int O_FILE = 4;
  /** Where the shared {@link BlockRecord} starts. */
  private static final int O_BLOCK = 8;
  private static final int O_BLOCK_OFFSET = O_BLOCK + BlockRecord.BLOCK_OFFSET;
  private static final int O_LENGTH = O_BLOCK + BlockRecord.LENGTH;
  private static final int O_CHECKSUM = O_BLOCK + BlockRecord.CHECKSUM;
  private static final int O_FREQ = O_BLOCK + BlockRecord.OWN;
  private static final int O_FLAGS = O_BLOCK + BlockRecord.FLAGS;
  private static final int O_DESER = O_BLOCK + BlockRecord.DESERIALIZER;
  private static final int O_TYPE = O_BLOCK + BlockRecord.TYPE;
  private static final int O_CACHED = O_BLOCK + BlockRecord.SIZE;

  private static final VarHandle INT =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

  final int index;
  final long base;
  private final int maxSlots;
  /**
   * Null until allocated (under the allocator lock, before the slab's first slot is handed
   * out); readers reach it only through a handle published after that.
   */
  private ByteBuffer records;

  int sizeClass = -1;
  int slots;
  int used;
  private long[] free = new long[0];
  /** Next slot the eviction clock looks at. */
  int clockHand;
  /** {@code System.nanoTime()} of the last read or allocation of any slot here (rebalancing). */
  volatile long lastAccess;

  Slab(int index, long base, int maxSlots) {
    this.index = index;
    this.base = base;
    this.maxSlots = maxSlots;
  }

  /**
   * Allocates the slab's records unless it has them; false if the JVM's direct memory is not
   * there (the slab cannot be used then). Caller holds the allocator lock.
   */
  boolean allocateRecords() {
    if (records == null) {
      try {
        records = ByteBuffer.allocateDirect(maxSlots * RECORD).order(ByteOrder.nativeOrder());
      } catch (OutOfMemoryError e) { // "Cannot reserve ... direct buffer memory"
        return false;
      }
    }
    return true;
  }

  /**
   * Gives the (empty) slab to {@code sizeClass} with {@code slotCount} slots; its records must
   * be allocated ({@link #allocateRecords}).
   */
  void assign(int sizeClass, int slotCount) {
    this.sizeClass = sizeClass;
    this.slots = slotCount;
    this.used = 0;
    this.clockHand = 0;
    this.free = new long[(slotCount + 63) >>> 6];
    for (int s = 0; s < slotCount; s++) {
      free[s >>> 6] |= 1L << s;
      records.putInt(s * RECORD + O_STATE, 0);
    }
  }

  void release() {
    sizeClass = -1;
    slots = 0;
    used = 0;
    free = new long[0];
  }

  /** Takes a free slot and marks it ALLOCATED; -1 if none. Caller holds the allocator lock. */
  int take() {
    for (int w = 0; w < free.length; w++) {
      long bits = free[w];
      if (bits != 0) {
        int bit = Long.numberOfTrailingZeros(bits);
        free[w] = bits & ~(1L << bit);
        int slot = (w << 6) + bit;
        used++;
        INT.setVolatile(records, slot * RECORD + O_STATE, ALLOCATED);
        return slot;
      }
    }
    return -1;
  }

  /**
   * Takes the given slot if free, as a published slot (checkpoint restore); caller holds the
   * allocator lock.
   */
  boolean takeSlot(int slot) {
    long bit = 1L << slot;
    if (slot < 0 || slot >= slots || (free[slot >>> 6] & bit) == 0) {
      return false;
    }
    free[slot >>> 6] &= ~bit;
    used++;
    INT.setVolatile(records, slot * RECORD + O_STATE, ALLOCATED | PUBLISHED);
    return true;
  }

  /** Returns a slot to the free bitmap. Caller holds the allocator lock. */
  void give(int slot) {
    long bit = 1L << slot;
    if ((free[slot >>> 6] & bit) != 0) {
      throw new IllegalStateException("slot " + index + ":" + slot + " freed twice");
    }
    INT.setVolatile(records, slot * RECORD + O_STATE, 0);
    free[slot >>> 6] |= bit;
    used--;
  }

  // ----- state word -------------------------------------------------------------------------

  int state(int slot) {
    return (int) INT.getVolatile(records, slot * RECORD + O_STATE);
  }

  /** Adds a pin unless the slot is not a live published slot; returns whether pinned. */
  boolean pin(int slot) {
    int at = slot * RECORD + O_STATE;
    while (true) {
      int s = (int) INT.getVolatile(records, at);
      if ((s & ALLOCATED) == 0 || (s & EVICTED) != 0 || (s & PINS) == PINS) {
        return false;
      }
      if (INT.compareAndSet(records, at, s, s + 1)) {
        return true;
      }
    }
  }

  /**
   * Marks an allocated slot published; false if it is not allocated or already evicted. Caller
   * holds the allocator lock (which decides whether the slab may take publications).
   */
  boolean markPublished(int slot) {
    int at = slot * RECORD + O_STATE;
    while (true) {
      int s = (int) INT.getVolatile(records, at);
      if ((s & ALLOCATED) == 0 || (s & EVICTED) != 0) {
        return false;
      }
      if (INT.compareAndSet(records, at, s, s | PUBLISHED)) {
        return true;
      }
    }
  }

  /** Drops a pin; returns true if this was the last pin of an evicted slot (caller frees it). */
  boolean unpin(int slot) {
    int s = (int) INT.getAndAdd(records, slot * RECORD + O_STATE, -1) - 1;
    if ((s & PINS) == PINS) {
      throw new IllegalStateException("slot " + index + ":" + slot + " unpinned more than pinned");
    }
    return (s & EVICTED) != 0 && (s & PINS) == 0;
  }

  /** Marks an unpublished slot evicted; returns true if no pin is held (caller frees it now). */
  boolean markEvicted(int slot) {
    int at = slot * RECORD + O_STATE;
    while (true) {
      int s = (int) INT.getVolatile(records, at);
      if ((s & EVICTED) != 0) {
        throw new IllegalStateException("slot " + index + ":" + slot + " evicted twice");
      }
      if (INT.compareAndSet(records, at, s, s | EVICTED)) {
        return (s & PINS) == 0;
      }
    }
  }

  int pins(int slot) {
    return state(slot) & PINS;
  }

  // ----- record fields ------------------------------------------------------------------------

  /** Fills the record of {@code slot} from {@code m} (all but the state word). */
  void write(int slot, BlockMeta m) {
    int at = slot * RECORD;
    records.putInt(at + O_FILE, m.fileId);
    BlockRecord.put(records, at + O_BLOCK, m);
    records.put(at + O_FREQ, (byte) m.freq);
    records.putInt(at + O_CACHED, m.cachedAt);
  }

  /** Reads the record of {@code slot} into {@code m} (not its handle or size class). */
  BlockMeta read(int slot, BlockMeta m) {
    int at = slot * RECORD;
    m.fileId = records.getInt(at + O_FILE);
    BlockRecord.get(records, at + O_BLOCK, m);
    m.freq = records.get(at + O_FREQ);
    m.cachedAt = records.getInt(at + O_CACHED);
    return m;
  }

  int fileId(int slot) {
    return records.getInt(slot * RECORD + O_FILE);
  }

  long blockOffset(int slot) {
    return records.getLong(slot * RECORD + O_BLOCK_OFFSET);
  }

  int length(int slot) {
    return records.getInt(slot * RECORD + O_LENGTH);
  }

  int checksum(int slot) {
    return records.getInt(slot * RECORD + O_CHECKSUM);
  }

  int freq(int slot) {
    return records.get(slot * RECORD + O_FREQ);
  }

  void setFreq(int slot, int freq) {
    records.put(slot * RECORD + O_FREQ, (byte) freq);
  }

  int flags(int slot) {
    return records.get(slot * RECORD + O_FLAGS) & 0xff;
  }

  void setFlags(int slot, int flags) {
    records.put(slot * RECORD + O_FLAGS, (byte) flags);
  }

  int deserializer(int slot) {
    return records.get(slot * RECORD + O_DESER) & 0xff;
  }

  int type(int slot) {
    return records.get(slot * RECORD + O_TYPE) & 0xff;
  }

  int cachedAt(int slot) {
    return records.getInt(slot * RECORD + O_CACHED);
  }

  long recordBytes() {
    ByteBuffer r = records;
    return r == null ? 0 : r.capacity();
  }
}
