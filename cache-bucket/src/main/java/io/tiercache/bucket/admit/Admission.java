/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.sketch.FrequencySketch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntSupplier;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;

/**
 * The L2's admission filter ({@code tiercache.l2.admission}): which new data blocks are worth
 * a copy, a checksum and a slot. In {@code tinylfu} mode a {@link FrequencySketch} counts every
 * lookup and every insert attempt; a candidate that would displace a victim is admitted only if
 * its estimated frequency is higher (W-TinyLFU's rule, as Caffeine applies it), by at least a
 * learned margin (strictness, below). In {@code all} mode every block is admitted and the sketch
 * is not fed.
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
 * <p>Leniency: a candidate that loses its duel is still admitted at a rate the filter learns from
 * its own mistakes ({@link #LENIENCY}, from 1/64 up to 63/64, spread evenly over the losers), one
 * rate for first reads and one for re-reads ({@link Recency}: whether the read that missed followed
 * an earlier read of the block within as many lookups as the L2 holds blocks). {@link Regrets}
 * remembers each loser it turned away and each victim a lenient admission pushed out; a later miss
 * on one is a regret. Once a generation of such decisions can no longer be regretted, each kind's
 * level rises a step if its turned away came back more than {@value #MARGIN} times as often as the
 * victims its lenient admissions pushed out, and falls one if less than {@value #FALL} times. What
 * it is for: blocks read again soon after their first read and then not for long (two readers
 * scanning the same range a few thousand reads apart), which frequency alone turns away at their
 * first read and recency keeps; on frequency-shaped reads the victims come back at least as often
 * and the levels fall to their floor or hold. Why two: the leading scanner's read is a first read
 * and comes back soon (the trailing one), the trailing one's is a re-read that does not come back
 * for a pass; one level wrote both or turned both away, and each of the leading scanner's blocks it
 * turned away was a miss that slowed the trailing one. First reads start at 1/2 ({@link #START}),
 * re-reads at the floor. Measured in docs/benchmarks.md, "The L2's admission learns its leniency"
 * and "First reads and re-reads".
 *
 * <p>Strictness: the other side of the duel. {@link Regrets} also remembers each candidate that
 * won and the victim it beat; a later hit on the winner, or miss on the victim, is a return.
 * Once a generation is final, the margin a winner's estimate must exceed its victim's by
 * ({@link #MARGINS}, 0 to 5) rises a step if the winners came back less than {@value #STRICT_UP}
 * times as often as the victims they beat, and falls one if more than {@value #STRICT_DOWN}
 * times. What it is for: on uniform reads every block is as likely to be read again, the
 * estimates differ by chance, and a sixth of the misses won their duel and were written for
 * nothing (a copy, a checksum, a slot, device wear on a {@code file:} or {@code pmem:} L2); the
 * margin rises to its top and the showdown's uniform cells wrote 49 to 73 % fewer bytes at the
 * same hit ratio. On frequency-shaped reads the winners come back more often and the margin
 * stays at or near 0. Winners and their victims are noted in the current generation without
 * counting as decisions, so the leniency's horizon is as before. Measured in docs/benchmarks.md,
 * "a learned margin on the admission duel".
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method; the mode is a volatile switched by
 * {@code onConfigurationChange}, read once per decision. The sketch, the recency table and the
 * regrets are lock free; the levels are atomics changed only under this object's monitor, which
 * the one thread that ends a generation takes once per generation. Losers racing for the even
 * spread may let in one more or one fewer: a shift of one decision.
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

  /**
   * The share of candidates that lose their duel and are admitted all the same, in 1/65536, by
   * leniency level: 1/64 (the floor, which samples what a pushed-out victim costs), 1/16, 1/4,
   * 1/2, 3/4, 15/16, 63/64 (the top, which samples what a turned-away candidate costs).
   */
  static final int[] LENIENCY = {1024, 4096, 16384, 32768, 49152, 61440, 64512};

  /** How many times likelier to come back the turned away must be than the pushed out. */
  static final double MARGIN = 1.5;

  /** Below this many times as likely, the leniency falls a level (between the two it holds). */
  static final double FALL = 1.1;

  /** Decisions of each kind (turned away, let in) a step of the level needs. */
  static final int MIN_SAMPLES = 32;

  /**
   * How much a candidate's estimate must exceed its victim's to win its duel, by strictness
   * level: 0 is Caffeine's rule; at 5 a candidate seen up to 5 times more than its victim loses.
   */
  static final int[] MARGINS = {0, 1, 2, 3, 5};

  /** The two kinds of read a losing candidate's leniency is learned for ({@link Recency}). */
  static final int FIRST = 0;
  static final int REREAD = 1;

  /**
   * The leniency level each kind of read starts at ({@link #LENIENCY}): first reads at 1/2,
   * re-reads at the floor. A level moves a step per generation of decisions at most, and the
   * showdown's runs with 500 us misses are a few generations long: first reads started at the
   * floor, the leading scanner's blocks were turned away while the level climbed and the
   * {@code scan-64k-3x} cell lost 1.6 pt against {@code all}; started at the top, the
   * frequency-shaped cells wrote nearly every miss until the level came down (up to 1.00x the
   * bytes of {@code all}). Measured in docs/benchmarks.md, "First reads and re-reads".
   */
  static final int[] START = {3, 0};

  /**
   * The strictness rises a level while the winners come back less than this many times as often
   * as the victims they beat (for each, the share remembered that came back, smoothed by one in
   * two): only when the wins are no evidence at all. On uniform reads every block is as likely
   * to be read again, and a winner, counted only while it is resident, comes back less often
   * than its victim. Measured against 1.25 (docs/benchmarks.md, "a learned margin"): with 1.25
   * the margin also rose in the mixed-size cells, which lost up to 0.33 pt.
   */
  static final double STRICT_UP = 1.0;

  /** The strictness falls a level when the winners come back more than this many times as often. */
  static final double STRICT_DOWN = 1.5;
  private static final int ONE = 1 << 16;

  private final FrequencySketch sketch;
  private final IntSupplier random;
  private final Regrets regrets;
  private final Recency recency;
  /** The leniency level of losing first reads ({@link #FIRST}) and re-reads ({@link #REREAD}). */
  private final AtomicIntegerArray levels = new AtomicIntegerArray(2);
  private final AtomicIntegerArray credits = new AtomicIntegerArray(2);
  private final AtomicInteger strictness = new AtomicInteger();
  // guarded by this: winners and the victims they beat, and their returns
  private long won;
  private long beaten;
  private long wonReturns;
  private long beatenReturns;
  // guarded by this: decisions and regrets of the final generations, older ones halved, by kind
  // of read (FIRST, REREAD)
  private final long[] rejected = new long[2];
  private final long[] rejectedRegrets = new long[2];
  private final long[] displaced = new long[2];
  private final long[] displacedRegrets = new long[2];
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
    this.regrets = new Regrets(expectedBlocks);
    this.recency = new Recency(expectedBlocks);
    levels.set(FIRST, START[FIRST]);
    levels.set(REREAD, START[REREAD]);
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
      int h = hash(key.getHfileName(), key.getOffset());
      sketch.increment(h);
      recency.lookedUp(h);
    }
  }

  /** Counts a lookup of {@code key} that missed: a regret if a recent decision turned it away. */
  public void missed(BlockCacheKey key) {
    if (tinyLfu) {
      regrets.regret(hash(key.getHfileName(), key.getOffset()));
    }
  }

  /** Counts a hit on {@code key}: a return if a recent decision admitted it as a winner. */
  public void hit(BlockCacheKey key) {
    if (tinyLfu) {
      regrets.hit(hash(key.getHfileName(), key.getOffset()));
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

  /**
   * Decides a new data block {@code candidate} that would displace the block at
   * {@code victimOffset} of {@code victimFile}: {@link #admits(int, int)}, or, if the candidate
   * loses, admitted all the same at the current leniency; the decision is remembered.
   */
  public boolean admits(BlockCacheKey candidate, String victimFile, long victimOffset) {
    int c = hash(candidate.getHfileName(), candidate.getOffset());
    int v = hash(victimFile, victimOffset);
    int cf = sketch.frequency(c);
    int vf = sketch.frequency(v);
    if (cf > vf + MARGINS[strictness.get()]) {
      regrets.note(c, Regrets.WON);
      regrets.note(v, Regrets.BEATEN);
      return true;
    }
    if (cf >= WARM && (random.getAsInt() & 127) == 0) {
      return true; // against hash flooding, as admits(int, int)
    }
    int read = recency.reread(c) ? REREAD : FIRST;
    boolean admit = lenient(read);
    int done = admit
        ? regrets.remember(v, read == REREAD ? Regrets.DISPLACED_REREAD : Regrets.DISPLACED)
        : regrets.remember(c, read == REREAD ? Regrets.REJECTED_REREAD : Regrets.REJECTED);
    if (done >= 0) {
      adapt(done);
    }
    return admit;
  }

  /** Whether this losing candidate is let in at its kind of read's leniency (an even spread). */
  private boolean lenient(int read) {
    if (credits.addAndGet(read, LENIENCY[levels.get(read)]) < ONE) {
      return false;
    }
    credits.addAndGet(read, -ONE);
    return true;
  }

  /**
   * One step of the strictness (see {@link #STRICT_UP}) once the winners and the victims they
   * beat each number {@value #MIN_SAMPLES}, and one step of each kind of read's leniency level,
   * once generation {@code gen}'s decisions are final: up if the candidates of that kind turned
   * away came back more than {@value #MARGIN} times as often as the victims that kind's lenient
   * admissions pushed out, down if less than {@value #FALL} times (each rate smoothed by one
   * regret in two decisions). The counts add up over generations until each has
   * {@value #MIN_SAMPLES} decisions; after each step they are halved, so older generations
   * weigh less.
   */
  private synchronized void adapt(int gen) {
    rejected[FIRST] += regrets.decided(Regrets.REJECTED, gen);
    rejected[REREAD] += regrets.decided(Regrets.REJECTED_REREAD, gen);
    displaced[FIRST] += regrets.decided(Regrets.DISPLACED, gen);
    displaced[REREAD] += regrets.decided(Regrets.DISPLACED_REREAD, gen);
    rejectedRegrets[FIRST] += regrets.regretted(Regrets.REJECTED, gen);
    rejectedRegrets[REREAD] += regrets.regretted(Regrets.REJECTED_REREAD, gen);
    displacedRegrets[FIRST] += regrets.regretted(Regrets.DISPLACED, gen);
    displacedRegrets[REREAD] += regrets.regretted(Regrets.DISPLACED_REREAD, gen);
    won += regrets.decided(Regrets.WON, gen);
    beaten += regrets.decided(Regrets.BEATEN, gen);
    wonReturns += regrets.regretted(Regrets.WON, gen);
    beatenReturns += regrets.regretted(Regrets.BEATEN, gen);
    if (won >= MIN_SAMPLES && beaten >= MIN_SAMPLES) {
      double winners = (wonReturns + 1.0) / (won + 2.0);
      double victims = (beatenReturns + 1.0) / (beaten + 2.0);
      int m = strictness.get();
      if (winners < STRICT_UP * victims) {
        if (m < MARGINS.length - 1) {
          strictness.set(m + 1);
        }
      } else if (winners > STRICT_DOWN * victims && m > 0) {
        strictness.set(m - 1);
      }
      won /= 2;
      beaten /= 2;
      wonReturns /= 2;
      beatenReturns /= 2;
    }
    for (int read = FIRST; read <= REREAD; read++) {
      if (rejected[read] < MIN_SAMPLES || displaced[read] < MIN_SAMPLES) {
        continue; // too few decisions of one kind to tell the rates apart: add the next generation
      }
      double turnedAway = (rejectedRegrets[read] + 1.0) / (rejected[read] + 2.0);
      double pushedOut = (displacedRegrets[read] + 1.0) / (displaced[read] + 2.0);
      int l = levels.get(read);
      if (turnedAway > MARGIN * pushedOut) {
        if (l < LENIENCY.length - 1) {
          levels.set(read, l + 1);
        }
      } else if (turnedAway < FALL * pushedOut && l > 0) {
        levels.set(read, l - 1);
      }
      rejected[read] /= 2;
      displaced[read] /= 2;
      rejectedRegrets[read] /= 2;
      displacedRegrets[read] /= 2;
    }
  }

  /**
   * The share of candidates on their first read that lose their duel and are admitted all the
   * same: learned in {@code tinylfu} mode ({@code 1/64} to {@code 63/64}), 1 in {@code all} mode.
   */
  public double leniency() {
    return leniency(FIRST);
  }

  /** As {@link #leniency()}, for candidates whose read is a re-read ({@link Recency}). */
  public double rereadLeniency() {
    return leniency(REREAD);
  }

  private double leniency(int read) {
    return tinyLfu ? LENIENCY[levels.get(read)] / (double) ONE : 1.0;
  }

  /**
   * How much a winner's estimate must exceed its victim's now, learned in {@code tinylfu} mode
   * (0, Caffeine's rule, to 5); 0 in {@code all} mode.
   */
  public int margin() {
    return tinyLfu ? MARGINS[strictness.get()] : 0;
  }

  /** The sketch, for stats and tests. */
  public FrequencySketch sketch() {
    return sketch;
  }

  /** Heap bytes of the sketch and of the memory of decisions. */
  public long heapBytes() {
    return sketch.heapBytes() + regrets.heapBytes() + recency.heapBytes();
  }

  static int hash(String file, long offset) {
    return file.hashCode() * 31 + Long.hashCode(offset);
  }
}
