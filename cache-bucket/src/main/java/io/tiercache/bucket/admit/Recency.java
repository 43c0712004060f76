/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The L2 admission filter's second question about a candidate, besides how often it was read
 * ({@link io.tiercache.core.sketch.FrequencySketch}): whether the read that missed followed an
 * earlier read of the same block within the last {@code window} lookups (a re-read), or did not
 * (a first read). Two scanners over the same range read each block twice a short time apart:
 * the leading one's read is a first read and comes back soon (the trailing one), the trailing
 * one's is a re-read that does not come back for a whole pass. Frequency alone prefers the
 * second (it has one sighting more); the filter learns a leniency for each kind of read
 * ({@link Admission}).
 *
 * <h2>Memory layout</h2>
 * One direct-mapped table of {@code size} ints (a power of two, at least the L2's blocks when
 * full, from 1,024 to 4 M entries, as {@link Regrets}); a key's hash picks its entry, the latest
 * lookup of any key that hashes there overwrites it (lossy: a lost entry makes a re-read look
 * like a first read):
 * <pre>
 *   int = | tag (15 bits) | re-read (1 bit) | tick of the lookup (16 bits) |
 * </pre>
 * The tag is a second hash of the key (a false match needs a 15-bit collision within one entry,
 * and then a recent tick). A tick is {@code window / }{@value #TICKS_PER_WINDOW} lookups; a
 * lookup is a re-read if its entry names the key with a tick less than a window old. Ticks wrap
 * after 65,536 (1,024 windows); an entry that old that was not overwritten would be read as
 * recent if its tick happened to match, once.
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method. The lookup count is one atomic; entries are read and then
 * written with {@code lazySet}: two lookups racing for one entry keep one of them, which can
 * make the other key's next read look like a first read.
 */
final class Recency {
  /** Ticks in a window: the window's resolution. */
  static final int TICKS_PER_WINDOW = 64;

  private static final int TICK_MASK = 0xffff;
  private static final int REREAD = 1 << 16;
  private static final int TAG_MASK = ~(REREAD | TICK_MASK);

  private final AtomicIntegerArray table;
  private final AtomicLong lookups = new AtomicLong();
  private final int mask;
  private final long tickLength;

  /**
   * @param expectedBlocks blocks the L2 holds when full: the table's size and the window (a
   *     block read again within as many lookups as the L2 holds blocks, at least 1,024, counts
   *     as re-read)
   */
  Recency(long expectedBlocks) {
    int size = Regrets.tableSize(expectedBlocks);
    this.table = new AtomicIntegerArray(size);
    this.mask = size - 1;
    this.tickLength = Math.max(1, Math.max(Regrets.MIN_SIZE, expectedBlocks) / TICKS_PER_WINDOW);
  }

  /** Counts a lookup of {@code hash}'s key and notes whether it is a re-read. */
  void lookedUp(int hash) {
    int h = Regrets.spread(hash);
    int i = h & mask;
    int now = (int) (lookups.getAndIncrement() / tickLength) & TICK_MASK;
    int e = table.get(i);
    boolean reread = e != 0 && (e & TAG_MASK) == tag(h)
        && ((now - e) & TICK_MASK) < TICKS_PER_WINDOW;
    table.lazySet(i, tag(h) | (reread ? REREAD : 0) | now);
  }

  /**
   * Whether the latest lookup of {@code hash}'s key was a re-read; false if the key's entry was
   * overwritten since (or it was never looked up).
   */
  boolean reread(int hash) {
    int h = Regrets.spread(hash);
    int e = table.get(h & mask);
    return (e & TAG_MASK) == tag(h) && (e & REREAD) != 0;
  }

  /** The entry {@code hash}'s key takes (for tests). */
  int slot(int hash) {
    return Regrets.spread(hash) & mask;
  }

  int size() {
    return mask + 1;
  }

  long heapBytes() {
    return 16L + 4L * table.length() + 48;
  }

  private static int tag(int spread) {
    return (spread * 0x9E3779B9) & TAG_MASK;
  }
}
