/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import io.tiercache.bucket.meta.BlockMeta;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One slab of the L2: a fixed range of engine memory cut into equal slots of one size class,
 * with a free-slot bitmap on heap and one 24-byte record per slot off heap.
 *
 * <h2>Memory layout of a slot record (off heap, native byte order)</h2>
 * <pre>
 *   0        4        8                         16       20   21   22      24
 *   +--------+--------+-------------------------+--------+----+----+-------+
 *   | state  | fileId | blockOffset:40|length:24| crc32c |dser|type|cachedAt|
 *   +--------+--------+-------------------------+--------+----+----+-------+
 *
 *   offset size field
 *     0     4   state        SlotState: ALLOCATED, EVICTED, PUBLISHED, CLOCK frequency (2 bits),
 *                            BlockMeta.F_* flags (3 bits), PROTECTED, pin count (23 bits);
 *                            CAS only
 *     4     4   fileId       the file's id in the index's registry (HFiles)
 *     8     8   place        bits 63-24: where the block starts in its HFile (below 2^40, 1 TB);
 *                            bits 23-0: serialized length - 1 (1 B to 16 MB)
 *    16     4   checksum     CRC32C of the serialized bytes
 *    20     1   deser        HBase deserializer id
 *    21     1   type         BlockType ordinal, 0xff for none
 *    22     2   cachedAt     minutes since the tier started, modulo 2^16 (45.5 days)
 * </pre>
 * Records are 8-byte aligned (24 is a multiple of 8), so the place word is read in one access.
 * A block whose offset or length does not fit is refused before it gets a slot
 * ({@link #fits}); a size class above 16 MB is refused at start-up. The durable records of a
 * persistent engine keep their own layout ({@code meta.BlockRecord}); all of them are read and
 * written through {@link BlockMeta}.
 *
 * <p>The records of a slab are allocated once, sized for the smallest class, and reused when the
 * slab changes class: at the slab's first {@link #assign}, or before by the tier's background
 * pass ({@link SlabAllocator#allocateRecords}), so building a tier touches no record memory and
 * costs the same at any size; they are freed with the engine's memory when the tier shuts down
 * (a direct buffer, released by the garbage collector's cleaner). A slab without records has
 * never held a slot, so no handle names it.
 *
 * <h2>Slot life cycle (state word)</h2>
 * <ol>
 *   <li>free: 0. {@link SlabAllocator} sets ALLOCATED when it hands the slot to a writer.</li>
 *   <li>published: the writer fills the record (flags and initial frequency in the state word
 *       by CAS) and the engine bytes, then, under the key's stripe lock, sets PUBLISHED
 *       ({@link #markPublished}, under the allocator lock, refused while the slab drains) and
 *       puts the handle in the index. Readers {@link #pin} a slot found in the index before
 *       the index may change (see {@code index.FileTable}); a pin is refused unless the slot is
 *       ALLOCATED and PUBLISHED and not EVICTED. A slot ALLOCATED without PUBLISHED belongs to
 *       its writer alone: a drain or the eviction clock never takes it, and its writer either
 *       publishes or frees it.</li>
 *   <li>evicted: the evictor removes the handle from the index, then {@link #markEvicted}: with
 *       no pins the slot is freed at once, otherwise EVICTED is set and the last {@link #unpin}
 *       frees it. A slot is never reused while pinned; a slot that was published is freed only
 *       this way, never by a plain {@link #give} that a racing pin could miss.</li>
 * </ol>
 *
 * <h2>Concurrency</h2>
 * {@code sizeClass}, {@code slots}, {@code used} and the bitmap are guarded by the allocator's
 * lock. The state word is changed only by CAS. Other record fields are written by the single
 * writer that owns the slot before it is published, and read after a lookup that synchronised
 * with the publication through the index (the file id also by {@code BlockIndex#put}, under
 * the key's stripe lock, before the slot enters the index).
 */
final class Slab {
  static final int RECORD = 24;
  private static final int ALLOCATED = SlotState.ALLOCATED;
  private static final int EVICTED = SlotState.EVICTED;
  private static final int PUBLISHED = SlotState.PUBLISHED;
  private static final int PINS = SlotState.PINS;

  private static final int O_STATE = 0;
  private static final int O_FILE = 4;
  private static final int O_PLACE = 8;
  private static final int O_CHECKSUM = 16;
  private static final int O_DESER = 20;
  private static final int O_TYPE = 21;
  private static final int O_CACHED = 22;

  /** Bits of the length in the place word. */
  private static final int LENGTH_BITS = 24;
  private static final long LENGTH_MASK = (1L << LENGTH_BITS) - 1;
  /** Largest block a record describes: 16 MB. */
  static final int MAX_LENGTH = 1 << LENGTH_BITS;
  /** Block offsets a record describes are below this: 2^40 (1 TB). */
  static final long BLOCK_OFFSET_LIMIT = 1L << (64 - LENGTH_BITS);

  private static final VarHandle INT =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

  final int index;
  final long base;
  private final int maxSlots;
  /**
   * Null until allocated (under the allocator lock, before the slab's first slot is handed
   * out), then never changed; every handle any reader meets was handed out after that. A
   * lookup under an optimistic read may meet a handle before it synchronises with the handle's
   * publication (it validates after), so the two reads such a lookup makes before validating,
   * {@link #blockOffset} and {@link #pin}, treat a null here as "no such block" rather than
   * rely on the ordering (address-dependent loads) that makes it impossible in practice. Not
   * volatile: a volatile field cost the L2's single-thread hit about a tenth (JMH
   * {@code HitBenchmark.hit1}, docs/benchmarks.md).
   */
  private ByteBuffer records;

  int sizeClass = -1;
  int slots;
  int used;
  private long[] free = new long[0];
  /** Next slot each CLOCK hand looks at here, by {@code Clock.EVICT} and {@code Clock.DEMOTE}. */
  final int[] hands = new int[2];
  /** {@code System.nanoTime()} of the last read or allocation of any slot here (rebalancing). */
  volatile long lastAccess;
  /**
   * Reads of this slab's blocks since the allocator last counted them into its class's hits
   * (rebalancing). Incremented by readers without a lock or CAS (a lost increment is a
   * miscount of one in a share, not a fault), read and reset under the allocator's lock.
   */
  long hits;

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
    Arrays.fill(hands, 0);
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

  /**
   * Adds a pin unless the slot is not a live published slot (or its pins are saturated), and
   * raises its CLOCK frequency (up to 3) in the same CAS; returns whether pinned.
   */
  boolean pin(int slot) {
    ByteBuffer r = records;
    if (r == null) {
      return false; // see the field
    }
    int at = slot * RECORD + O_STATE;
    while (true) {
      int s = (int) INT.getVolatile(r, at);
      if ((s & (ALLOCATED | PUBLISHED | EVICTED)) != (ALLOCATED | PUBLISHED)
          || (s & PINS) == PINS) {
        return false;
      }
      int n = SlotState.freq(s) < 3 ? s + 1 + (1 << SlotState.FREQ_SHIFT) : s + 1;
      if (INT.compareAndSet(r, at, s, n)) {
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

  /** Marks a slot evicted; returns true if no pin is held (caller frees it now). */
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

  /** Replaces the state word's bits under {@code mask} with {@code bits}, by CAS. */
  private void setStateBits(int slot, int mask, int bits) {
    int at = slot * RECORD + O_STATE;
    while (true) {
      int s = (int) INT.getVolatile(records, at);
      if (INT.compareAndSet(records, at, s, (s & ~mask) | bits)) {
        return;
      }
    }
  }

  int freq(int slot) {
    return SlotState.freq(state(slot));
  }

  /** Sets the CLOCK frequency (0..3); a CAS, as pins change the same word. */
  void setFreq(int slot, int freq) {
    setStateBits(slot, SlotState.FREQ, freq << SlotState.FREQ_SHIFT);
  }

  /** Sets or clears PROTECTED; a CAS. Caller holds the allocator lock. */
  void setProtected(int slot, boolean on) {
    setStateBits(slot, SlotState.PROTECTED, on ? SlotState.PROTECTED : 0);
  }

  int flags(int slot) {
    return SlotState.flags(state(slot));
  }

  /** Adds {@code flags} to the slot's. */
  void addFlags(int slot, int flags) {
    setStateBits(slot, 0, (flags << SlotState.FLAGS_SHIFT) & SlotState.FLAGS);
  }

  // ----- record fields ------------------------------------------------------------------------

  /** Whether a record can describe a block at {@code blockOffset}, {@code length} bytes long. */
  static boolean fits(long blockOffset, int length) {
    return blockOffset >= 0 && blockOffset < BLOCK_OFFSET_LIMIT && length > 0
        && length <= MAX_LENGTH;
  }

  /**
   * Fills the record of {@code slot} from {@code m}: the fields, and the flags and
   * {@link BlockMeta#initialFreq} in the state word.
   *
   * @throws IllegalArgumentException if {@code m}'s block offset or length does not fit
   *     ({@link #fits}); callers refuse such blocks first
   */
  void write(int slot, BlockMeta m) {
    if (!fits(m.blockOffset, m.length)) {
      throw new IllegalArgumentException("a slot record cannot describe " + m);
    }
    int at = slot * RECORD;
    records.putInt(at + O_FILE, m.fileId);
    records.putLong(at + O_PLACE, (m.blockOffset << LENGTH_BITS) | (m.length - 1));
    records.putInt(at + O_CHECKSUM, m.checksum);
    records.put(at + O_DESER, (byte) m.deserializer);
    records.put(at + O_TYPE, (byte) m.type);
    records.putShort(at + O_CACHED, (short) m.cachedAt);
    setStateBits(slot, SlotState.FREQ | SlotState.FLAGS | SlotState.PROTECTED,
        (BlockMeta.initialFreq(m.flags) << SlotState.FREQ_SHIFT)
            | ((m.flags << SlotState.FLAGS_SHIFT) & SlotState.FLAGS));
  }

  /** Reads the record of {@code slot} into {@code m} (not its handle or size class). */
  BlockMeta read(int slot, BlockMeta m) {
    int at = slot * RECORD;
    int state = state(slot);
    long place = records.getLong(at + O_PLACE);
    m.fileId = records.getInt(at + O_FILE);
    m.blockOffset = place >>> LENGTH_BITS;
    m.length = (int) (place & LENGTH_MASK) + 1;
    m.checksum = records.getInt(at + O_CHECKSUM);
    m.flags = SlotState.flags(state);
    m.deserializer = records.get(at + O_DESER) & 0xff;
    m.type = records.get(at + O_TYPE) & 0xff;
    m.freq = SlotState.freq(state);
    m.cachedAt = records.getShort(at + O_CACHED) & 0xffff;
    return m;
  }

  int fileId(int slot) {
    return records.getInt(slot * RECORD + O_FILE);
  }

  void setFileId(int slot, int fileId) {
    records.putInt(slot * RECORD + O_FILE, fileId);
  }

  /** The block offset in slot {@code slot}'s record; -1 (no block's) if the slab has none. */
  long blockOffset(int slot) {
    ByteBuffer r = records;
    return r == null ? -1 : r.getLong(slot * RECORD + O_PLACE) >>> LENGTH_BITS;
  }

  int length(int slot) {
    return (int) (records.getLong(slot * RECORD + O_PLACE) & LENGTH_MASK) + 1;
  }

  int checksum(int slot) {
    return records.getInt(slot * RECORD + O_CHECKSUM);
  }

  int deserializer(int slot) {
    return records.get(slot * RECORD + O_DESER) & 0xff;
  }

  int type(int slot) {
    return records.get(slot * RECORD + O_TYPE) & 0xff;
  }

  int cachedAt(int slot) {
    return records.getShort(slot * RECORD + O_CACHED) & 0xffff;
  }

  long recordBytes() {
    ByteBuffer r = records;
    return r == null ? 0 : r.capacity();
  }
}
