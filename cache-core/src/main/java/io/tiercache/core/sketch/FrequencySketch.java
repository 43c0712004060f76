/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.sketch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A concurrent estimate of how often each key was seen recently: TinyLFU's 4-bit count-min
 * sketch behind a doorkeeper (Einziger, Friedman, Manes, "TinyLFU: A Highly Efficient Cache
 * Admission Policy", ACM TOS 2017). Any thread may record and estimate; nothing blocks.
 *
 * <p>Keys are given as 32-bit hashes; the sketch spreads them itself. The estimate of a key is
 * between 0 and {@value #MAX_FREQUENCY}: 1 for its doorkeeper bit, plus the minimum of its four
 * counters.
 *
 * <h2>Memory layout</h2>
 * {@code table} holds {@code width} longs of sixteen 4-bit counters each. A key takes one long
 * per hash function (depth 4) and, in each, one counter of the group its hash picks:
 * <pre>
 *   long = | c15 | c14 | ... | c1 | c0 |      4 bits each, saturating at 15
 *   counter of hash function i = start + i,  start = (hash &amp; 3) * 4
 * </pre>
 * {@code doorkeeper} is a Bloom filter of {@code 64 * width} bits with two hash functions: a
 * key's first sighting in a sample period only sets its bits there, so the many keys seen once
 * (a scan) never reach the counters and cannot inflate the estimates of the keys they collide
 * with. Heap: {@code 16 * width} bytes, width the next power of two of the expected keys.
 *
 * <h2>Aging</h2>
 * After {@code sampleFactor * width} recorded sightings (the sample; the factor is
 * {@value #DEFAULT_SAMPLE_FACTOR}, Caffeine's, unless the owner gives another) every counter is
 * halved and the doorkeeper cleared, so the estimates follow a changing workload. The count of
 * sightings is halved with them, so each later aging comes half a sample after the one before.
 *
 * <h2>Concurrency</h2>
 * Counters and doorkeeper words change by compare-and-set, so no counter increment is lost or
 * torn. Two threads that see a key for the first time in a sample at once may each set one of its
 * two doorkeeper bits and both take the sighting for the doorkeeper's: one sighting is lost. The
 * halving pass runs on the one thread that claims it and may race with concurrent increments: an
 * increment made during it can be lost or halved early. Estimates are heuristics; a lost count
 * shifts one admission decision, never which bytes a cache serves.
 */
public final class FrequencySketch {
  /** Largest estimate: 15 from the counters, 1 from the doorkeeper. */
  public static final int MAX_FREQUENCY = 16;

  /** Sightings per long of counters in a sample, unless the owner gives another factor. */
  public static final int DEFAULT_SAMPLE_FACTOR = 10;

  /** Largest sample factor: counters of 4 bits saturate long before such a sample ends. */
  public static final int MAX_SAMPLE_FACTOR = 1024;

  /** Most longs of counters (and of doorkeeper bits): 16 MB each. */
  static final int MAX_WIDTH = 1 << 21;

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final long[] SEEDS = {
    0xc3a5c85c97cb3127L, 0xb492b66fbe98f273L, 0x9ae16a3b2f90404fL, 0xcbf29ce484222325L
  };
  private static final long HALF_MASK = 0x7777777777777777L;

  private final long[] table;
  private final long[] doorkeeper;
  private final int tableMask;
  private final int doorMask; // over bits
  private final long sampleSize;
  private final AtomicLong additions = new AtomicLong();
  private final AtomicBoolean aging = new AtomicBoolean();
  private final AtomicLong agings = new AtomicLong();

  /**
   * A sketch for about {@code expectedKeys} distinct keys in the working set (a cache's capacity
   * in blocks); at least 64, at most {@value #MAX_WIDTH} longs, beyond which estimates collide
   * more.
   */
  public FrequencySketch(long expectedKeys) {
    this(expectedKeys, DEFAULT_SAMPLE_FACTOR);
  }

  /**
   * As {@link #FrequencySketch(long)}, aging after {@code sampleFactor * width} sightings: a
   * longer sample remembers rarer keys (more sightings each before a halving) and follows a
   * change in popularity more slowly.
   *
   * @throws IllegalArgumentException if {@code sampleFactor} is not between 1 and
   *     {@value #MAX_SAMPLE_FACTOR}
   */
  public FrequencySketch(long expectedKeys, int sampleFactor) {
    if (sampleFactor < 1 || sampleFactor > MAX_SAMPLE_FACTOR) {
      throw new IllegalArgumentException("sample factor " + sampleFactor
          + " is not between 1 and " + MAX_SAMPLE_FACTOR);
    }
    long wanted = Math.max(64, Math.min(MAX_WIDTH, expectedKeys));
    int width = (int) Long.highestOneBit(wanted - 1) << 1;
    this.table = new long[width];
    this.doorkeeper = new long[width];
    this.tableMask = width - 1;
    this.doorMask = (width << 6) - 1;
    this.sampleSize = (long) sampleFactor * width;
  }

  /** Counts a sighting of {@code hash}: its doorkeeper bit if unset, else its counters. */
  public void increment(int hash) {
    int h = spread(hash);
    if (!admitToDoorkeeper(h)) {
      incrementCounters(h);
    }
    countAddition();
  }

  /**
   * Counts a sighting of {@code hash} only if it has none in this sample (sets its doorkeeper
   * bit); returns whether it counted. For events that usually follow a counted one for the same
   * access (a cache's insert after its miss), so one access counts once.
   */
  public boolean incrementIfUnseen(int hash) {
    if (admitToDoorkeeper(spread(hash))) {
      countAddition();
      return true;
    }
    return false;
  }

  /** Returns the estimated recent frequency of {@code hash}, 0 to {@value #MAX_FREQUENCY}. */
  public int frequency(int hash) {
    int h = spread(hash);
    int start = (h & 3) << 2;
    int min = 15;
    for (int i = 0; i < 4; i++) {
      long word = (long) LONGS.getOpaque(table, indexOf(h, i));
      min = Math.min(min, (int) ((word >>> ((start + i) << 2)) & 0xfL));
    }
    return min + (inDoorkeeper(h) ? 1 : 0);
  }

  /** Sightings after which the sketch ages. */
  public long sampleSize() {
    return sampleSize;
  }

  /** How many times the sketch has aged (halved its counters) since it was built. */
  public long agings() {
    return agings.get();
  }

  /** Heap bytes of the counters and the doorkeeper. */
  public long heapBytes() {
    return 16L * table.length + 64;
  }

  private void incrementCounters(int h) {
    int start = (h & 3) << 2;
    for (int i = 0; i < 4; i++) {
      int index = indexOf(h, i);
      int shift = (start + i) << 2;
      long one = 1L << shift;
      long bits = 0xfL << shift;
      long word = (long) LONGS.getOpaque(table, index);
      while ((word & bits) != bits) {
        long seen = (long) LONGS.compareAndExchange(table, index, word, word + one);
        if (seen == word) {
          break;
        }
        word = seen;
      }
    }
  }

  /** Sets the doorkeeper bits of {@code h}; returns whether any was unset. */
  private boolean admitToDoorkeeper(int h) {
    boolean added = setBit(h & doorMask);
    added |= setBit(rehash(h) & doorMask);
    return added;
  }

  private boolean inDoorkeeper(int h) {
    return isSet(h & doorMask) && isSet(rehash(h) & doorMask);
  }

  private boolean setBit(int bit) {
    int index = bit >>> 6;
    long mask = 1L << bit;
    long word = (long) LONGS.getOpaque(doorkeeper, index);
    while ((word & mask) == 0) {
      long seen = (long) LONGS.compareAndExchange(doorkeeper, index, word, word | mask);
      if (seen == word) {
        return true;
      }
      word = seen;
    }
    return false;
  }

  private boolean isSet(int bit) {
    return ((long) LONGS.getOpaque(doorkeeper, bit >>> 6) & (1L << bit)) != 0;
  }

  private void countAddition() {
    if (additions.incrementAndGet() >= sampleSize && aging.compareAndSet(false, true)) {
      try {
        age();
      } finally {
        aging.set(false);
      }
    }
  }

  /** Halves every counter and clears the doorkeeper: one pass, on the claiming thread. */
  private void age() {
    for (int i = 0; i < table.length; i++) {
      long word = (long) LONGS.getOpaque(table, i);
      long seen;
      while ((seen = (long) LONGS.compareAndExchange(table, i, word, (word >>> 1) & HALF_MASK))
          != word) {
        word = seen;
      }
      LONGS.setOpaque(doorkeeper, i, 0L);
    }
    additions.addAndGet(-sampleSize / 2);
    agings.incrementAndGet();
  }

  private int indexOf(int h, int i) {
    long hash = (h + SEEDS[i]) * SEEDS[i];
    hash += hash >>> 32;
    return ((int) hash) & tableMask;
  }

  private static int spread(int x) {
    x = ((x >>> 16) ^ x) * 0x45d9f3b;
    x = ((x >>> 16) ^ x) * 0x45d9f3b;
    return (x >>> 16) ^ x;
  }

  private static int rehash(int x) {
    x *= 0x31848bab;
    x ^= x >>> 14;
    return x;
  }
}
