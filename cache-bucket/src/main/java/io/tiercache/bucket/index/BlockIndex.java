/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.index;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongPredicate;

/**
 * The L2's index: (file id, block offset) to slot handle, in off-heap open-addressing tables, so
 * a cached block costs no Java object and no on-heap bytes here.
 *
 * <h2>Memory layout</h2>
 * 64 segments, chosen by the key's hash; each is a table of 24-byte entries in a direct buffer:
 * <pre>
 *   offset size field
 *     0     4   fileId + 1    (0 marks an empty entry)                 E_FILE
 *     4     4   unused
 *     8     8   blockOffset   where the block starts in its HFile       E_BLOCK_OFFSET
 *    16     8   slot handle   (see Handles)                             E_HANDLE
 * </pre>
 * Linear probing; removal by backward shift, so there are no tombstones. An entry's home is the
 * low 26 bits of its hash scaled to the table ({@code (h & 0x3FFFFFF) * entries >>> 26}); the top
 * 6 bits chose the segment.
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

  private static final int SEGMENTS = 64;
  private static final int SEGMENT_BITS = 26;
  private static final int HOME_MASK = (1 << SEGMENT_BITS) - 1;
  private static final int ENTRY = 24;
  private static final int E_FILE = 0;
  private static final int E_BLOCK_OFFSET = 8;
  private static final int E_HANDLE = 16;
  private static final int MIN_ENTRIES = 16;
  /** Entries per segment above which the table would pass 2^31 bytes. */
  private static final long MAX_SEGMENT_ENTRIES = Integer.MAX_VALUE / ENTRY;

  private final Segment[] segments = new Segment[SEGMENTS];

  /**
   * Allocates the tables for up to {@code maxEntries} keys.
   *
   * @throws OutOfMemoryError if the direct memory is not there (callers check first, see
   *     {@link #bytesFor})
   * @throws IllegalArgumentException if {@code maxEntries} needs more than 2 GB per segment
   */
  public BlockIndex(long maxEntries) {
    int entries = segmentEntries(maxEntries);
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i] = new Segment(entries);
    }
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

    int home(int h) {
      return (int) (((h & HOME_MASK) * (long) entries) >>> SEGMENT_BITS);
    }

    int next(int i) {
      return i + 1 == entries ? 0 : i + 1;
    }
  }

  private static int hash(int fileId, long blockOffset) {
    long h = (blockOffset * 0x9E3779B97F4A7C15L) ^ (fileId * 0xC2B2AE3D27D4EB4FL);
    h ^= h >>> 31;
    h *= 0xBF58476D1CE4E5B9L;
    return (int) (h ^ (h >>> 29));
  }

  private Segment segment(int h) {
    return segments[(h >>> SEGMENT_BITS) & (SEGMENTS - 1)];
  }

  /**
   * Looks up the handle of (fileId, blockOffset) and, if found, runs {@code action} on it under
   * the segment's read lock; returns the handle if the action accepted it, else {@code -1}.
   */
  public long get(int fileId, long blockOffset, LongPredicate action) {
    int h = hash(fileId, blockOffset);
    Segment seg = segment(h);
    long stamp = seg.lock.readLock();
    try {
      int at = find(seg, h, fileId, blockOffset);
      if (at < 0) {
        return -1;
      }
      long handle = seg.table.getLong(at * ENTRY + E_HANDLE);
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
   * Maps (fileId, blockOffset) to {@code handle}; returns the handle it replaced, -1 if there was
   * none, or {@link #FULL} (and changes nothing) if the key is new and its segment is full.
   */
  public long put(int fileId, long blockOffset, long handle) {
    int h = hash(fileId, blockOffset);
    Segment seg = segment(h);
    long stamp = seg.lock.writeLock();
    try {
      int at = find(seg, h, fileId, blockOffset);
      if (at >= 0) {
        long old = seg.table.getLong(at * ENTRY + E_HANDLE);
        seg.table.putLong(at * ENTRY + E_HANDLE, handle);
        return old;
      }
      if (seg.size + 1 >= seg.entries) {
        return FULL; // one entry always stays empty: it ends every probe
      }
      insert(seg, h, fileId, blockOffset, handle);
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
    int h = hash(fileId, blockOffset);
    Segment seg = segment(h);
    long stamp = seg.lock.writeLock();
    try {
      int at = find(seg, h, fileId, blockOffset);
      if (at < 0) {
        return -1;
      }
      long handle = seg.table.getLong(at * ENTRY + E_HANDLE);
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

  /** Visits every entry, one segment at a time under its read lock. */
  public void forEach(EntryVisitor visitor) {
    for (Segment seg : segments) {
      long stamp = seg.lock.readLock();
      try {
        for (int i = 0; i < seg.entries; i++) {
          int file = seg.table.getInt(i * ENTRY + E_FILE);
          if (file != 0) {
            visitor.visit(file - 1, seg.table.getLong(i * ENTRY + E_BLOCK_OFFSET),
                seg.table.getLong(i * ENTRY + E_HANDLE));
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
          int file = seg.table.getInt(i * ENTRY + E_FILE);
          if (file != 0) {
            files[filled] = file - 1;
            blockOffsets[filled] = seg.table.getLong(i * ENTRY + E_BLOCK_OFFSET);
            handles[filled] = seg.table.getLong(i * ENTRY + E_HANDLE);
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

  private static int find(Segment seg, int h, int fileId, long blockOffset) {
    ByteBuffer t = seg.table;
    for (int i = seg.home(h); ; i = seg.next(i)) {
      int file = t.getInt(i * ENTRY + E_FILE);
      if (file == 0) {
        return -1;
      }
      if (file == fileId + 1 && t.getLong(i * ENTRY + E_BLOCK_OFFSET) == blockOffset) {
        return i;
      }
    }
  }

  private static void insert(Segment seg, int h, int fileId, long blockOffset, long handle) {
    ByteBuffer t = seg.table;
    int i = seg.home(h);
    while (t.getInt(i * ENTRY + E_FILE) != 0) {
      i = seg.next(i);
    }
    t.putInt(i * ENTRY + E_FILE, fileId + 1);
    t.putLong(i * ENTRY + E_BLOCK_OFFSET, blockOffset);
    t.putLong(i * ENTRY + E_HANDLE, handle);
  }

  private static void deleteAt(Segment seg, int at) {
    ByteBuffer t = seg.table;
    int hole = at;
    for (int j = seg.next(hole); t.getInt(j * ENTRY + E_FILE) != 0; j = seg.next(j)) {
      int home = seg.home(
          hash(t.getInt(j * ENTRY + E_FILE) - 1, t.getLong(j * ENTRY + E_BLOCK_OFFSET)));
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        t.putInt(hole * ENTRY + E_FILE, t.getInt(j * ENTRY + E_FILE));
        t.putLong(hole * ENTRY + E_BLOCK_OFFSET, t.getLong(j * ENTRY + E_BLOCK_OFFSET));
        t.putLong(hole * ENTRY + E_HANDLE, t.getLong(j * ENTRY + E_HANDLE));
        hole = j;
      }
    }
    t.putInt(hole * ENTRY + E_FILE, 0);
  }
}
