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
 * 64 segments, chosen by the key's hash; each is a power-of-two table of 24-byte entries in a
 * direct buffer:
 * <pre>
 *   offset size field
 *     0     4   fileId + 1   (0 marks an empty entry)
 *     4     4   unused
 *     8     8   block offset in the HFile
 *    16     8   slot handle  (see Handles)
 * </pre>
 * Linear probing; removal by backward shift, so there are no tombstones. A segment doubles when
 * it passes 3/4 full and halves below 1/8 (never under its initial size).
 *
 * <h2>Concurrency</h2>
 * Each segment has a {@link StampedLock}: lookups take the read lock, mutations the write lock.
 * {@link #get} runs the caller's pin action while still holding the read lock, so a reader pins a
 * slot before any eviction (which removes the entry under the write lock) can free it.
 */
public final class BlockIndex {
  private static final int SEGMENTS = 64;
  private static final int ENTRY = 24;
  private static final int MIN_ENTRIES = 64;

  private final Segment[] segments = new Segment[SEGMENTS];

  public BlockIndex() {
    for (int i = 0; i < SEGMENTS; i++) {
      segments[i] = new Segment();
    }
  }

  private static final class Segment {
    final StampedLock lock = new StampedLock();
    ByteBuffer table = allocate(MIN_ENTRIES); // guarded by lock
    int mask = MIN_ENTRIES - 1; // guarded by lock
    int size; // guarded by lock
  }

  private static ByteBuffer allocate(int entries) {
    return ByteBuffer.allocateDirect(entries * ENTRY).order(ByteOrder.nativeOrder());
  }

  private static int hash(int fileId, long offset) {
    long h = (offset * 0x9E3779B97F4A7C15L) ^ (fileId * 0xC2B2AE3D27D4EB4FL);
    h ^= h >>> 31;
    h *= 0xBF58476D1CE4E5B9L;
    return (int) (h ^ (h >>> 29));
  }

  private Segment segment(int h) {
    return segments[(h >>> 26) & (SEGMENTS - 1)];
  }

  /**
   * Looks up the handle of (fileId, offset) and, if found, runs {@code action} on it under the
   * segment's read lock; returns the handle if the action accepted it, else {@code -1}.
   */
  public long get(int fileId, long offset, LongPredicate action) {
    int h = hash(fileId, offset);
    Segment seg = segment(h);
    long stamp = seg.lock.readLock();
    try {
      int at = find(seg, h, fileId, offset);
      if (at < 0) {
        return -1;
      }
      long handle = seg.table.getLong(at * ENTRY + 16);
      return action.test(handle) ? handle : -1;
    } finally {
      seg.lock.unlockRead(stamp);
    }
  }

  /** Returns the handle of (fileId, offset) or -1, without running anything under the lock. */
  public long peek(int fileId, long offset) {
    return get(fileId, offset, handle -> true);
  }

  /** Maps (fileId, offset) to {@code handle}; returns the handle it replaced, or -1. */
  public long put(int fileId, long offset, long handle) {
    int h = hash(fileId, offset);
    Segment seg = segment(h);
    long stamp = seg.lock.writeLock();
    try {
      int at = find(seg, h, fileId, offset);
      if (at >= 0) {
        long old = seg.table.getLong(at * ENTRY + 16);
        seg.table.putLong(at * ENTRY + 16, handle);
        return old;
      }
      if ((seg.size + 1) * 4L > (seg.mask + 1) * 3L) {
        rehash(seg, (seg.mask + 1) * 2);
      }
      insert(seg, h, fileId, offset, handle);
      seg.size++;
      return -1;
    } finally {
      seg.lock.unlockWrite(stamp);
    }
  }

  /**
   * Removes (fileId, offset) if it maps to {@code expected} (or to anything when expected is -1);
   * returns the handle removed, or -1.
   */
  public long remove(int fileId, long offset, long expected) {
    int h = hash(fileId, offset);
    Segment seg = segment(h);
    long stamp = seg.lock.writeLock();
    try {
      int at = find(seg, h, fileId, offset);
      if (at < 0) {
        return -1;
      }
      long handle = seg.table.getLong(at * ENTRY + 16);
      if (expected != -1 && handle != expected) {
        return -1;
      }
      deleteAt(seg, at);
      seg.size--;
      if (seg.mask + 1 > MIN_ENTRIES && seg.size * 8L < seg.mask + 1) {
        rehash(seg, (seg.mask + 1) / 2);
      }
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

  /** Off-heap bytes held by the tables. */
  public long offHeapBytes() {
    long n = 0;
    for (Segment seg : segments) {
      long stamp = seg.lock.readLock();
      n += seg.table.capacity();
      seg.lock.unlockRead(stamp);
    }
    return n;
  }

  /** Visits every entry, one segment at a time under its read lock. */
  public void forEach(EntryVisitor visitor) {
    for (Segment seg : segments) {
      long stamp = seg.lock.readLock();
      try {
        for (int i = 0; i <= seg.mask; i++) {
          int file = seg.table.getInt(i * ENTRY);
          if (file != 0) {
            visitor.visit(file - 1, seg.table.getLong(i * ENTRY + 8),
                seg.table.getLong(i * ENTRY + 16));
          }
        }
      } finally {
        seg.lock.unlockRead(stamp);
      }
    }
  }

  /** Receives index entries. */
  @FunctionalInterface
  public interface EntryVisitor {
    void visit(int fileId, long offset, long handle);
  }

  private static int find(Segment seg, int h, int fileId, long offset) {
    ByteBuffer t = seg.table;
    for (int i = h & seg.mask; ; i = (i + 1) & seg.mask) {
      int file = t.getInt(i * ENTRY);
      if (file == 0) {
        return -1;
      }
      if (file == fileId + 1 && t.getLong(i * ENTRY + 8) == offset) {
        return i;
      }
    }
  }

  private static void insert(Segment seg, int h, int fileId, long offset, long handle) {
    ByteBuffer t = seg.table;
    int i = h & seg.mask;
    while (t.getInt(i * ENTRY) != 0) {
      i = (i + 1) & seg.mask;
    }
    t.putInt(i * ENTRY, fileId + 1);
    t.putLong(i * ENTRY + 8, offset);
    t.putLong(i * ENTRY + 16, handle);
  }

  private static void deleteAt(Segment seg, int at) {
    ByteBuffer t = seg.table;
    int mask = seg.mask;
    int hole = at;
    for (int j = (hole + 1) & mask; t.getInt(j * ENTRY) != 0; j = (j + 1) & mask) {
      int home = hash(t.getInt(j * ENTRY) - 1, t.getLong(j * ENTRY + 8)) & mask;
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        t.putInt(hole * ENTRY, t.getInt(j * ENTRY));
        t.putLong(hole * ENTRY + 8, t.getLong(j * ENTRY + 8));
        t.putLong(hole * ENTRY + 16, t.getLong(j * ENTRY + 16));
        hole = j;
      }
    }
    t.putInt(hole * ENTRY, 0);
  }

  private static void rehash(Segment seg, int entries) {
    ByteBuffer old = seg.table;
    int oldEntries = seg.mask + 1;
    seg.table = allocate(entries);
    seg.mask = entries - 1;
    for (int i = 0; i < oldEntries; i++) {
      int file = old.getInt(i * ENTRY);
      if (file != 0) {
        long offset = old.getLong(i * ENTRY + 8);
        insert(seg, hash(file - 1, offset), file - 1, offset, old.getLong(i * ENTRY + 16));
      }
    }
  }
}
