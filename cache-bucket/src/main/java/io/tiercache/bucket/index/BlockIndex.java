/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.index;

import io.tiercache.bucket.alloc.Handles;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongPredicate;

/**
 * The L2's index: (file id, block offset) to slot handle, in off-heap open-addressing tables of
 * 8-byte entries, so a cached block costs no Java object and no on-heap bytes here, and about 11
 * off-heap bytes.
 *
 * <h2>Memory layout</h2>
 * 64 segments, chosen by the low 6 bits of the key's 64-bit hash; each is a table of 8-byte
 * entries in a direct buffer (native byte order):
 * <pre>
 *   63                             32 31                              0
 *   +--------------------------------+--------------------------------+
 *   |     tag: high 32 bits of the   |   slot number + 1 (0: empty)   |
 *   |          key's hash            |   slab &lt;&lt; slotBits | slot    |
 *   +--------------------------------+--------------------------------+
 * </pre>
 * The key itself is not stored: it is kept once, in the slot record ({@code alloc.Slab}), and a
 * lookup whose tag matches reads the record's file id and block offset ({@link SlotKeys}) to
 * confirm. A slot's key fields are written before the slot enters the index and not changed
 * while it is there (a slot is reused only after it left the index), so reading them under the
 * segment's lock is safe. Two keys of one segment share a tag with probability 2^-32: such a
 * match costs one more record read, never a wrong answer.
 *
 * <p>Linear probing; removal by backward shift, so there are no tombstones. An entry's home is
 * its tag scaled to the table ({@code tag * entries >>> 32}), so moving entries needs no record
 * read. The slot number packs the handle's slab and slot into 32 bits (as many bits of
 * slot as the largest slot count per slab needs); an L2 whose slabs and slots do not fit 32 bits is refused at construction.
 *
 * <h2>Capacity</h2>
 * The tables never grow: they are allocated once, at construction, for the most blocks the L2
 * can hold ({@code maxEntries}: every slab cut into slots of the smallest class), at most 3/4
 * full with that many keys spread evenly, plus a margin of eight standard deviations per segment
 * for uneven spread. So all the index's direct memory is taken, and counted, at start-up, and no
 * insert can fail for lack of memory. A segment that still fills up (only possible far beyond
 * the margin) refuses the insert with {@link #FULL}; the caller drops the block.
 *
 * <h2>Concurrency</h2>
 * Each segment has a {@link StampedLock}: lookups take the read lock, mutations the write lock.
 * {@link #get} runs the caller's pin action while still holding the read lock, so a reader pins a
 * slot before any eviction (which removes the entry under the write lock) can free it.
 */
public final class BlockIndex {
  /** What {@link #put} returns when the key's segment has no free entry left. */
  public static final long FULL = -2;

  /** Reads the key of an indexed slot from its slot record (the allocator's records). */
  public interface SlotKeys {
    int fileId(long handle);

    long blockOffset(long handle);
  }

  private static final int SEGMENTS = 64;
  private static final int ENTRY = 8;
  private static final int TAG_SHIFT = 32;
  private static final long SLOT_MASK = 0xFFFF_FFFFL;
  private static final int MIN_ENTRIES = 16;
  /** Entries per segment above which the table would pass 2^31 bytes. */
  private static final long MAX_SEGMENT_ENTRIES = Integer.MAX_VALUE / ENTRY;

  private final Segment[] segments = new Segment[SEGMENTS];
  private final SlotKeys keys;
  /** Bits of the slot within its slab in a slot number. */
  private final int slotBits;
  private final int slotMask;

  /**
   * Allocates the tables for up to {@code maxEntries} keys, of slabs of at most
   * {@code slotsPerSlab} slots each, whose keys {@code keys} reads.
   *
   * @throws OutOfMemoryError if the direct memory is not there (callers check first, see
   *     {@link #bytesFor})
   * @throws IllegalArgumentException if {@code maxEntries} needs more than 2 GB per segment, or
   *     its slot numbers do not fit 32 bits
   */
  public BlockIndex(long maxEntries, int slotsPerSlab, SlotKeys keys) {
    this.keys = keys;
    this.slotBits = slotBits(slotsPerSlab);
    this.slotMask = (1 << slotBits) - 1;
    long slabs = (maxEntries + slotsPerSlab - 1) / slotsPerSlab;
    if (((slabs << slotBits) - 1) >= SLOT_MASK) {
      throw new IllegalArgumentException(maxEntries + " slots of " + slabs + " slabs do not fit"
          + " the index's 32-bit slot numbers: lower hbase.bucketcache.size or use larger "
          + "hbase.bucketcache.bucket.sizes or tiercache.bucket.slab.size");
    }
    int entries = segmentEntries(maxEntries);
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i] = new Segment(entries);
    }
  }

  private static int slotBits(int slotsPerSlab) {
    if (slotsPerSlab <= 0) {
      throw new IllegalArgumentException("slots per slab " + slotsPerSlab);
    }
    return 32 - Integer.numberOfLeadingZeros(slotsPerSlab - 1);
  }

  /** Direct memory an index for {@code maxEntries} keys takes. */
  public static long bytesFor(long maxEntries) {
    return (long) SEGMENTS * segmentEntries(maxEntries) * ENTRY;
  }

  /**
   * Entries per segment: the segment's share of {@code maxEntries} at 3/4 load, plus eight
   * standard deviations of that share (a binomial count), so no segment fills in practice.
   */
  static int segmentEntries(long maxEntries) {
    if (maxEntries < 0) {
      throw new IllegalArgumentException("negative entry count " + maxEntries);
    }
    double share = (double) maxEntries / SEGMENTS;
    long entries = (long) Math.ceil(share * 4 / 3 + 8 * Math.sqrt(share)) + MIN_ENTRIES;
    if (entries > MAX_SEGMENT_ENTRIES) {
      throw new IllegalArgumentException(maxEntries + " entries need more than "
          + MAX_SEGMENT_ENTRIES + " per index segment");
    }
    return (int) entries;
  }

  private static final class Segment {
    final StampedLock lock = new StampedLock();
    final ByteBuffer table;
    final int entries;
    int size; // guarded by lock

    Segment(int entries) {
      this.entries = entries;
      this.table = ByteBuffer.allocateDirect(entries * ENTRY).order(ByteOrder.nativeOrder());
    }

    int home(int tag) {
      return (int) (((tag & SLOT_MASK) * entries) >>> 32);
    }

    int next(int i) {
      return i + 1 == entries ? 0 : i + 1;
    }
  }

  /** The key's 64-bit hash: low 6 bits choose the segment, high 32 bits are the tag. */
  private static long hash(int fileId, long blockOffset) {
    long h = (blockOffset * 0x9E3779B97F4A7C15L) ^ (fileId * 0xC2B2AE3D27D4EB4FL);
    h ^= h >>> 31;
    h *= 0xBF58476D1CE4E5B9L;
    h ^= h >>> 29;
    h *= 0x94D049BB133111EBL;
    return h ^ (h >>> 32);
  }

  private Segment segment(long h) {
    return segments[(int) h & (SEGMENTS - 1)];
  }

  private static int tag(long h) {
    return (int) (h >>> TAG_SHIFT);
  }

  private long entry(int tag, long handle) {
    long number = ((long) Handles.slab(handle) << slotBits) | Handles.slot(handle);
    return ((long) tag << TAG_SHIFT) | (number + 1);
  }

  private long handleOf(long entry) {
    long number = (entry & SLOT_MASK) - 1;
    return Handles.of((int) (number >>> slotBits), (int) number & slotMask);
  }

  /**
   * Looks up the handle of (fileId, blockOffset) and, if found, runs {@code action} on it under
   * the segment's read lock; returns the handle if the action accepted it, else {@code -1}.
   */
  public long get(int fileId, long blockOffset, LongPredicate action) {
    long h = hash(fileId, blockOffset);
    Segment seg = segment(h);
    long stamp = seg.lock.readLock();
    try {
      int at = find(seg, tag(h), fileId, blockOffset);
      if (at < 0) {
        return -1;
      }
      long handle = handleOf(seg.table.getLong(at * ENTRY));
      return action.test(handle) ? handle : -1;
    } finally {
      seg.lock.unlockRead(stamp);
    }
  }

  /** Returns the handle of (fileId, blockOffset) or -1, running nothing under the lock. */
  public long peek(int fileId, long blockOffset) {
    return get(fileId, blockOffset, handle -> true);
  }

  /**
   * Maps (fileId, blockOffset) to {@code handle}, whose slot record already describes that key;
   * returns the handle it replaced, -1 if there was none, or {@link #FULL} (and changes nothing)
   * if the key is new and its segment is full.
   */
  public long put(int fileId, long blockOffset, long handle) {
    long h = hash(fileId, blockOffset);
    int tag = tag(h);
    Segment seg = segment(h);
    long stamp = seg.lock.writeLock();
    try {
      int at = find(seg, tag, fileId, blockOffset);
      if (at >= 0) {
        long old = handleOf(seg.table.getLong(at * ENTRY));
        seg.table.putLong(at * ENTRY, entry(tag, handle));
        return old;
      }
      if (seg.size + 1 >= seg.entries) {
        return FULL; // one entry always stays empty: it ends every probe
      }
      int i = seg.home(tag);
      while (seg.table.getLong(i * ENTRY) != 0) {
        i = seg.next(i);
      }
      seg.table.putLong(i * ENTRY, entry(tag, handle));
      seg.size++;
      return -1;
    } finally {
      seg.lock.unlockWrite(stamp);
    }
  }

  /**
   * Removes (fileId, blockOffset) if it maps to {@code expected} (or to anything when expected
   * is -1); returns the handle removed, or -1.
   */
  public long remove(int fileId, long blockOffset, long expected) {
    long h = hash(fileId, blockOffset);
    Segment seg = segment(h);
    long stamp = seg.lock.writeLock();
    try {
      int at = find(seg, tag(h), fileId, blockOffset);
      if (at < 0) {
        return -1;
      }
      long handle = handleOf(seg.table.getLong(at * ENTRY));
      if (expected != -1 && handle != expected) {
        return -1;
      }
      deleteAt(seg, at);
      seg.size--;
      return handle;
    } finally {
      seg.lock.unlockWrite(stamp);
    }
  }

  /** Number of entries (sums the segments; a snapshot under concurrent change). */
  public long size() {
    long n = 0;
    for (Segment seg : segments) {
      long stamp = seg.lock.readLock();
      n += seg.size;
      seg.lock.unlockRead(stamp);
    }
    return n;
  }

  /** Off-heap bytes held by the tables (fixed at construction). */
  public long offHeapBytes() {
    long n = 0;
    for (Segment seg : segments) {
      n += seg.table.capacity();
    }
    return n;
  }

  /**
   * Visits every entry, one segment at a time under its read lock, with the key its slot record
   * holds.
   */
  public void forEach(EntryVisitor visitor) {
    for (Segment seg : segments) {
      long stamp = seg.lock.readLock();
      try {
        for (int i = 0; i < seg.entries; i++) {
          long e = seg.table.getLong(i * ENTRY);
          if (e != 0) {
            long handle = handleOf(e);
            visitor.visit(keys.fileId(handle), keys.blockOffset(handle), handle);
          }
        }
      } finally {
        seg.lock.unlockRead(stamp);
      }
    }
  }

  /**
   * Checks every entry (for invariant checks): its slot record's key hashes to the entry's
   * segment and tag, and a lookup of that key finds this entry.
   *
   * @throws IllegalStateException naming the first entry that fails
   */
  public void check() {
    for (int s = 0; s < SEGMENTS; s++) {
      Segment seg = segments[s];
      long stamp = seg.lock.readLock();
      try {
        for (int i = 0; i < seg.entries; i++) {
          long e = seg.table.getLong(i * ENTRY);
          if (e == 0) {
            continue;
          }
          long handle = handleOf(e);
          int fileId = keys.fileId(handle);
          long blockOffset = keys.blockOffset(handle);
          long h = hash(fileId, blockOffset);
          if (segment(h) != seg || tag(h) != (int) (e >>> TAG_SHIFT)
              || find(seg, tag(h), fileId, blockOffset) != i) {
            throw new IllegalStateException("index entry " + s + ":" + i + " (slot "
                + Handles.toString(handle) + ") does not match its record's key " + fileId + "@"
                + blockOffset);
          }
        }
      } finally {
        seg.lock.unlockRead(stamp);
      }
    }
  }

  /**
   * A weakly consistent walk over the entries that holds at most {@code batch} of them on the
   * heap: each segment is read {@code batch} table positions at a time under its read lock,
   * and the lock is released between batches. An entry moved by a concurrent removal (backward
   * shift) may be seen twice or missed; every entry present throughout the walk is seen. For the
   * web UI's block list, which must not copy the whole index.
   */
  public Cursor cursor(int batch) {
    return new Cursor(Math.max(1, batch));
  }

  /** See {@link #cursor}. Used by one thread. */
  public final class Cursor {
    private final int[] files;
    private final long[] blockOffsets;
    private final long[] handles;
    private int segment;
    private int position; // next table position to read in the segment
    private int filled;
    private int at = -1;

    private Cursor(int batch) {
      files = new int[batch];
      blockOffsets = new long[batch];
      handles = new long[batch];
    }

    /** Moves to the next entry; false when the walk is over. */
    public boolean next() {
      while (++at >= filled) {
        if (segment == SEGMENTS) {
          return false;
        }
        fill();
      }
      return true;
    }

    private void fill() {
      at = -1; // next() moves to 0
      filled = 0;
      Segment seg = segments[segment];
      long stamp = seg.lock.readLock();
      try {
        int end = Math.min(seg.entries, position + files.length);
        for (int i = position; i < end; i++) {
          long e = seg.table.getLong(i * ENTRY);
          if (e != 0) {
            long handle = handleOf(e);
            files[filled] = keys.fileId(handle);
            blockOffsets[filled] = keys.blockOffset(handle);
            handles[filled] = handle;
            filled++;
          }
        }
        position = end;
        if (end == seg.entries) {
          segment++;
          position = 0;
        }
      } finally {
        seg.lock.unlockRead(stamp);
      }
    }

    public int fileId() {
      return files[at];
    }

    public long blockOffset() {
      return blockOffsets[at];
    }

    public long handle() {
      return handles[at];
    }
  }

  /** Receives index entries. */
  @FunctionalInterface
  public interface EntryVisitor {
    void visit(int fileId, long blockOffset, long handle);
  }

  private int find(Segment seg, int tag, int fileId, long blockOffset) {
    ByteBuffer t = seg.table;
    for (int i = seg.home(tag); ; i = seg.next(i)) {
      long e = t.getLong(i * ENTRY);
      if (e == 0) {
        return -1;
      }
      if ((int) (e >>> TAG_SHIFT) == tag) {
        long handle = handleOf(e);
        if (keys.blockOffset(handle) == blockOffset && keys.fileId(handle) == fileId) {
          return i;
        }
      }
    }
  }

  private static void deleteAt(Segment seg, int at) {
    ByteBuffer t = seg.table;
    int hole = at;
    for (int j = seg.next(hole); t.getLong(j * ENTRY) != 0; j = seg.next(j)) {
      long e = t.getLong(j * ENTRY);
      int home = seg.home((int) (e >>> TAG_SHIFT));
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        t.putLong(hole * ENTRY, e);
        hole = j;
      }
    }
    t.putLong(hole * ENTRY, 0);
  }
}
