/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Keys (32-bit hashes) recently left out of the L2, each with the admission clock at the time:
 * a direct-mapped table, so a newer key may overwrite an older one of the same slot (the table
 * then forgets it early; the rates {@link Bypass} compares are estimates either way). An entry
 * is the hash in the high 32 bits and the low 32 bits of the clock in the low ones.
 *
 * <p>Concurrency: lock free; a lost race between two writers of one slot forgets one key.
 */
final class Ghosts {
  private final AtomicLongArray entries;
  private final int mask;

  /** A table of {@code size} entries, a power of two. */
  Ghosts(int size) {
    if (Integer.bitCount(size) != 1) {
      throw new IllegalArgumentException("ghost table size " + size + " is not a power of two");
    }
    this.entries = new AtomicLongArray(size);
    this.mask = size - 1;
    for (int i = 0; i < size; i++) {
      entries.set(i, Long.MIN_VALUE); // no key: no hash has that entry with a stamp in range
    }
  }

  /** Remembers {@code hash}, left out at admission clock {@code now}. */
  void add(int hash, long now) {
    entries.lazySet(slot(hash), (long) hash << 32 | (now & 0xFFFF_FFFFL));
  }

  /**
   * Whether {@code hash} was left out within the last {@code horizon} ticks of the clock
   * ({@code now}); if so the entry is forgotten, so one key counts once.
   */
  boolean remove(int hash, long now, long horizon) {
    int i = slot(hash);
    long e = entries.get(i);
    if ((int) (e >>> 32) != hash || e == Long.MIN_VALUE) {
      return false;
    }
    long age = (now - e) & 0xFFFF_FFFFL;
    return age <= horizon && entries.compareAndSet(i, e, Long.MIN_VALUE);
  }

  /** Heap bytes of the table. */
  long heapBytes() {
    return 16L + 8L * (mask + 1);
  }

  private int slot(int hash) {
    return (hash ^ hash >>> 16) * 0x9E3779B9 >>> 7 & mask;
  }
}
