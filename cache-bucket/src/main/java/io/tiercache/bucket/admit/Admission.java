/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.sketch.FrequencySketch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;

/**
 * The L2's admission filter ({@code tiercache.l2.admission}): which new data blocks are worth
 * a copy, a checksum and a slot. In {@code tinylfu} mode a {@link FrequencySketch} counts every
 * lookup and every insert attempt; a candidate that would displace a victim is admitted only if
 * its estimated frequency is higher (W-TinyLFU's rule, as Caffeine applies it). In {@code all}
 * mode every block is admitted and the sketch is not fed.
 *
 * <p>What counts: a lookup ({@code getBlock} that is not a repeat) counts one sighting, hit or
 * miss. An insert counts one only if the key has no sighting in the current sample (its
 * doorkeeper bit is unset): an insert usually follows the miss of the same read, which already
 * counted, while a prefetch or cache-on-write insert has no lookup before it.
 *
 * <p>Hash flooding: an attacker (or an unlucky workload) that keeps a victim's estimate high by
 * colliding keys would keep every candidate out. As in Caffeine, a warm candidate (estimate at
 * least {@value #WARM}) that does not beat its victim is still admitted with probability 1/128.
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method; the mode is a volatile switched by
 * {@code onConfigurationChange}, read once per decision. The sketch is lock free.
 */
public final class Admission {
  /** Estimate from which a candidate that loses to its victim is admitted at random. */
  static final int WARM = 6;

  /**
   * The sketch ages after this many sightings per long of counters, twice Caffeine's 10.
   * Measured against 10 in two runs of the showdown's page-cache cells (docs/benchmarks.md,
   * "The L2 sketch's sample"): hit ratio +0.3 to +1.2 pt in the {@code scan} and 64 KB
   * {@code zipf} cells, -0.1 to +0.5 pt in the other 3x and 9x cells, -0.5 pt at
   * {@code zipf-mixed-1x}, 0.43x to 0.96x the bytes written; widening the sketch changed
   * nothing, and factors of 30 and more lost hit ratio in the mixed-size cells. The likely
   * reason (not measured): the L2's candidates and victims are the rarely read blocks (the L1
   * and CLOCK keep the popular ones), whose few sightings a longer sample tells apart.
   */
  public static final int SAMPLE_FACTOR = 20;

  private final FrequencySketch sketch;
  private final IntSupplier random;
  private volatile boolean tinyLfu;

  /**
   * @param mode {@code tinylfu} or {@code all}, already validated
   * @param expectedBlocks blocks the L2 holds when full, to size the sketch
   */
  public Admission(String mode, long expectedBlocks) {
    this(mode, expectedBlocks, () -> ThreadLocalRandom.current().nextInt());
  }

  Admission(String mode, long expectedBlocks, IntSupplier random) {
    this.sketch = new FrequencySketch(expectedBlocks, SAMPLE_FACTOR);
    this.random = random;
    setMode(mode);
  }

  /** Switches mode ({@code tinylfu} or {@code all}, validated by {@link CacheSettings}). */
  public void setMode(String mode) {
    this.tinyLfu = CacheSettings.L2_ADMISSION.check(mode).equals("tinylfu");
  }

  /** Whether new data blocks go through the filter ({@code tinylfu}). */
  public boolean filtering() {
    return tinyLfu;
  }

  /** Counts a lookup of {@code key} (hit or miss). */
  public void lookedUp(BlockCacheKey key) {
    if (tinyLfu) {
      sketch.increment(hash(key.getHfileName(), key.getOffset()));
    }
  }

  /** Counts an insert attempt of {@code key}, unless it was seen in this sample already. */
  public void inserting(BlockCacheKey key) {
    if (tinyLfu) {
      sketch.incrementIfUnseen(hash(key.getHfileName(), key.getOffset()));
    }
  }

  /** The estimated recent frequency of the block at {@code offset} in {@code file}. */
  public int frequency(String file, long offset) {
    return sketch.frequency(hash(file, offset));
  }

  /**
   * Caffeine's rule: admit a candidate whose estimate beats its victim's, or, against hash
   * flooding, a warm one at random (1/128).
   */
  public boolean admits(int candidateFrequency, int victimFrequency) {
    if (candidateFrequency > victimFrequency) {
      return true;
    }
    return candidateFrequency >= WARM && (random.getAsInt() & 127) == 0;
  }

  /** The sketch, for stats and tests. */
  public FrequencySketch sketch() {
    return sketch;
  }

  /** Heap bytes of the sketch. */
  public long heapBytes() {
    return sketch.heapBytes();
  }

  static int hash(String file, long offset) {
    return file.hashCode() * 31 + Long.hashCode(offset);
  }
}
