/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.index;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.core.file.HFiles;
import java.util.concurrent.locks.StampedLock;

/**
 * One HFile's part of the L2's index: block offset to slot, an open-addressing table of 32-bit
 * entries on the heap (see {@link BlockIndex} for the entry format and the geometry).
 *
 * <h2>Table</h2>
 * Linear probing from the entry's home, {@code (low 32 bits of hash(blockOffset)) * capacity
 * >>> 32} (any capacity, not only powers of two); removal by backward shift, so there are no
 * tombstones. The block offset is not stored: a probe compares the entry's tag with the key's
 * and, on a match, reads the slot record's block offset to confirm. Moving an entry (backward
 * shift, rehash) reads its record's block offset to find its home.
 *
 * <p>Capacity follows the content: a table past 13/16 full is rebuilt at 9/16 full, one below
 * 3/16 full (and above {@value #MIN_CAPACITY} entries) likewise, so it stays between 3/16 and 13/16
 * full and a block costs at most 4 / (9/16) = 7.1 bytes right after a growth (about 5.3–7.1
 * in steady growth; power-of-two doubling would leave 5.3–10.7, which with the 24-byte slot record
 * misses issue 15's 32 bytes per block). Rebuilding reads each entry's record; amortised over
 * the 4/16 of the capacity added since the last rebuild.
 *
 * <h2>Concurrency</h2>
 * Writers ({@link #put}, {@link #remove}) hold the monitor of the file's {@link HFiles.Entry},
 * so there is one writer per file at a time; they change the table, or swap in a rebuilt one,
 * under {@link #lock}'s write lock, and build a rebuilt table before taking it (the old table
 * does not change meanwhile: only writers change it), so readers wait only for one entry's
 * change. Readers ({@link #pin}, {@link #peek}) try an optimistic read first and fall back to the
 * read lock: a hot file costs its readers no write to a shared word. A pin under an optimistic
 * read is kept only if the stamp still validates after it, i.e. no writer changed the table
 * between the probe and the pin, so the pinned slot was indexed under this key when it was
 * pinned; otherwise it is unpinned (a pin succeeds only on a published, not evicted slot, whose
 * unpin frees it if it was evicted meanwhile) and the lookup retried under the read lock.
 */
public final class FileTable implements HFiles.Blocks {
  static final int MIN_CAPACITY = 4;

  private final BlockIndex index;
  private final StampedLock lock = new StampedLock();
  /** Entries; replaced and changed under the write lock by the file's single writer. */
  private int[] table = new int[MIN_CAPACITY];
  /** Entries in use; changed by the writer (entry monitor held). */
  private int size;

  FileTable(BlockIndex index) {
    this.index = index;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public long heapBytes() {
    return 16 + 4L * table.length + 48; // the array, and this object with its lock
  }

  /** Capacity of the current table (tests). */
  int capacity() {
    return table.length;
  }

  // ----- readers ----------------------------------------------------------------------------

  /** The handle of {@code blockOffset}, pinned ({@link BlockIndex.Slots#pin}), or NONE. */
  long pin(long blockOffset) {
    long hash = BlockIndex.hash(blockOffset);
    BlockIndex.Slots slots = index.slots;
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      long h = probe(table, hash, blockOffset);
      if (h == Handles.NONE || !slots.pin(h)) {
        if (lock.validate(stamp)) {
          return Handles.NONE;
        }
      } else if (lock.validate(stamp)) {
        return h;
      } else {
        slots.unpin(h);
      }
    }
    stamp = lock.readLock();
    try {
      long h = probe(table, hash, blockOffset);
      return h != Handles.NONE && slots.pin(h) ? h : Handles.NONE;
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** The handle of {@code blockOffset} or NONE, nothing pinned. */
  long peek(long blockOffset) {
    long hash = BlockIndex.hash(blockOffset);
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      long h = probe(table, hash, blockOffset);
      if (lock.validate(stamp)) {
        return h;
      }
    }
    stamp = lock.readLock();
    try {
      return probe(table, hash, blockOffset);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /**
   * The handle {@code t} maps {@code blockOffset} to, or NONE. Bounded by the capacity, so a
   * table changing under an optimistic read cannot hold it in a loop (validation then fails).
   */
  private long probe(int[] t, long hash, long blockOffset) {
    int tag = index.tag(hash);
    int cap = t.length;
    int i = home(hash, cap);
    for (int n = 0; n < cap; n++) {
      int e = t[i];
      if (e == 0) {
        return Handles.NONE;
      }
      if (index.tagOf(e) == tag) {
        long h = index.handleOf(e);
        if (index.slots.blockOffset(h) == blockOffset) {
          return h;
        }
      }
      i = i + 1 == cap ? 0 : i + 1;
    }
    return Handles.NONE;
  }

  /** Position of {@code blockOffset}'s entry in the current table, or -1; writers only. */
  private int find(long hash, long blockOffset) {
    int[] t = table;
    int tag = index.tag(hash);
    int cap = t.length;
    for (int i = home(hash, cap); ; i = i + 1 == cap ? 0 : i + 1) {
      int e = t[i];
      if (e == 0) {
        return -1;
      }
      if (index.tagOf(e) == tag && index.slots.blockOffset(index.handleOf(e)) == blockOffset) {
        return i;
      }
    }
  }

  static int home(long hash, int capacity) {
    return (int) (((hash & 0xFFFF_FFFFL) * capacity) >>> 32);
  }

  // ----- writers (entry monitor held) -------------------------------------------------------

  /**
   * Maps {@code blockOffset} to {@code handle}, whose record already describes the key; returns
   * the handle replaced, NONE, or {@link BlockIndex#FULL} if the table cannot grow.
   */
  long put(long blockOffset, long handle) {
    long hash = BlockIndex.hash(blockOffset);
    int entry = index.entry(hash, handle);
    int at = find(hash, blockOffset);
    if (at >= 0) {
      long old = index.handleOf(table[at]);
      long stamp = lock.writeLock();
      table[at] = entry;
      lock.unlockWrite(stamp);
      return old;
    }
    int[] t = table;
    if ((size + 1) * 16L > t.length * 13L) {
      long want = (size + 1) * 16L / 9 + 1;
      if (want > BlockIndex.MAX_TABLE) {
        return BlockIndex.FULL;
      }
      t = rebuilt((int) want);
      insert(t, hash, entry);
      long stamp = lock.writeLock();
      table = t;
      size++;
      lock.unlockWrite(stamp);
      return Handles.NONE;
    }
    long stamp = lock.writeLock();
    insert(t, hash, entry);
    size++;
    lock.unlockWrite(stamp);
    return Handles.NONE;
  }

  /**
   * Removes {@code blockOffset} if it maps to {@code expected} (or to anything when expected is
   * NONE); returns the handle removed, or NONE.
   */
  long remove(long blockOffset, long expected) {
    long hash = BlockIndex.hash(blockOffset);
    int at = find(hash, blockOffset);
    if (at < 0) {
      return Handles.NONE;
    }
    int[] t = table;
    long h = index.handleOf(t[at]);
    if (expected != Handles.NONE && h != expected) {
      return Handles.NONE;
    }
    long stamp = lock.writeLock();
    try {
      deleteAt(t, at);
      size--;
    } finally {
      lock.unlockWrite(stamp);
    }
    if (t.length > MIN_CAPACITY && size * 16L < t.length * 3L) {
      int[] smaller = rebuilt(Math.max(MIN_CAPACITY, (int) (size * 16L / 9) + 1));
      stamp = lock.writeLock();
      table = smaller;
      lock.unlockWrite(stamp);
    }
    return h;
  }

  private void deleteAt(int[] t, int at) {
    int cap = t.length;
    int hole = at;
    for (int j = hole + 1 == cap ? 0 : hole + 1; t[j] != 0; j = j + 1 == cap ? 0 : j + 1) {
      int home = home(BlockIndex.hash(index.slots.blockOffset(index.handleOf(t[j]))), cap);
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        t[hole] = t[j];
        hole = j;
      }
    }
    t[hole] = 0;
  }

  /** A copy of the current table's entries in a table of {@code capacity} (reads records). */
  private int[] rebuilt(int capacity) {
    int[] old = table;
    int[] t = new int[capacity];
    for (int e : old) {
      if (e != 0) {
        insert(t, BlockIndex.hash(index.slots.blockOffset(index.handleOf(e))), e);
      }
    }
    return t;
  }

  private static void insert(int[] t, long hash, int entry) {
    int cap = t.length;
    int i = home(hash, cap);
    while (t[i] != 0) {
      i = i + 1 == cap ? 0 : i + 1;
    }
    t[i] = entry;
  }

  // ----- walks ------------------------------------------------------------------------------

  /** Visits every entry's handle under the read lock. */
  void forEach(java.util.function.LongConsumer visitor) {
    long stamp = lock.readLock();
    try {
      for (int e : table) {
        if (e != 0) {
          visitor.accept(index.handleOf(e));
        }
      }
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /**
   * Copies the handles at table positions {@code [from, from + out.length)} into {@code out}
   * under the read lock; returns how many were copied, with the position to go on from (or -1
   * at the end of the table) in {@code next[0]}.
   */
  int copy(int from, long[] out, int[] next) {
    long stamp = lock.readLock();
    try {
      int[] t = table;
      int n = 0;
      int i = from;
      for (; i < t.length && n < out.length; i++) {
        if (t[i] != 0) {
          out[n++] = index.handleOf(t[i]);
        }
      }
      next[0] = i < t.length ? i : -1;
      return n;
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /**
   * Checks every entry: its record's block offset leads a probe to it, its tag matches, and
   * the entry count is {@link #size}. Caller holds the entry's monitor.
   *
   * @throws IllegalStateException naming the first entry that fails
   */
  void check(String file) {
    long stamp = lock.readLock();
    try {
      int[] t = table;
      int n = 0;
      for (int i = 0; i < t.length; i++) {
        if (t[i] == 0) {
          continue;
        }
        n++;
        long h = index.handleOf(t[i]);
        long blockOffset = index.slots.blockOffset(h);
        long hash = BlockIndex.hash(blockOffset);
        if (index.tagOf(t[i]) != index.tag(hash) || find(hash, blockOffset) != i) {
          throw new IllegalStateException("index entry " + file + ":" + i + " (slot "
              + Handles.toString(h) + ") does not match its record's block offset "
              + blockOffset);
        }
      }
      if (n != size) {
        throw new IllegalStateException("index table of " + file + " holds " + n
            + " entries, counts " + size);
      }
    } finally {
      lock.unlockRead(stamp);
    }
  }
}
