/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The L2 admission filter's memory of its recent decisions, to learn which of them it regrets:
 * a ghost of each candidate it turned away, of each victim a lenient admission pushed out, of
 * each candidate that won its duel and of the victim that one beat (keys only, no data). A later
 * miss on a key remembered as turned away, pushed out or beaten ({@link #regret}), or a hit on
 * one remembered as a winner ({@link #hit}), is a return of that kind, counted once, against the
 * generation of the decision; a generation's counts are final once its keys are forgotten
 * ({@link #remember} says when).
 *
 * <h2>Memory layout</h2>
 * One direct-mapped table of {@code size} ints (a power of two, at least the L2's blocks when
 * full, at most {@value #MAX_SIZE}); a key's hash picks its entry, a newer key overwrites an
 * older one (the memory is lossy, not wrong: a lost ghost is a regret not counted):
 * <pre>
 *   int = | tag (23 bits) | kind (3 bits) | generation (6 bits) |
 * </pre>
 * The tag is a second hash of the key, so a false match needs a 23-bit collision within one
 * entry. A {@code generation} ends every {@code size / 2} remembered decisions; an entry counts
 * only in its own generation and the next, so a key is remembered for between {@code size / 2}
 * and {@code size} decisions of any kind: the same horizon for every kind, about as long as
 * the L2 takes to turn over its blocks when every miss is written. The generation number wraps
 * after 64; an entry 64 generations old (32 tables of later decisions) has been overwritten
 * with near certainty, and one that was not would count one regret too many.
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method. Entries are written with {@code lazySet} and consumed by
 * compare-and-set, so a regret is counted at most once; two decisions racing for one entry keep
 * one of them. A decision's generation follows from its number in the one atomic count, so no
 * thread can stamp a stale generation or end one twice; the counts of a generation are cleared a
 * whole generation before its first decision.
 */
final class Regrets {
  /** The decision behind a remembered key. */
  static final int REJECTED = 0;
  static final int DISPLACED = 1;
  /** A candidate admitted because it beat its victim: its return is a hit ({@link #hit}). */
  static final int WON = 2;
  /** The victim such a candidate displaced: its return is a miss, as for the first two. */
  static final int BEATEN = 3;
  /** A candidate turned away whose read was a re-read ({@link Recency}); REJECTED: a first read. */
  static final int REJECTED_REREAD = 4;
  /** A victim a re-read's lenient admission pushed out; DISPLACED: a first read's. */
  static final int DISPLACED_REREAD = 5;
  static final int KINDS = 6;

  /** Largest table: 16 MB of heap. */
  static final int MAX_SIZE = 1 << 22;
  static final int MIN_SIZE = 1 << 10;

  private static final int GEN_BITS = 6;
  private static final int GEN_MASK = (1 << GEN_BITS) - 1;
  private static final int KIND_SHIFT = GEN_BITS;
  private static final int KIND_MASK = 7 << KIND_SHIFT;
  private static final int GENERATIONS = 1 << GEN_BITS;

  private final AtomicIntegerArray table;
  /** Per kind and generation (index kind * 64 + generation): decisions remembered. */
  private final AtomicLongArray decided = new AtomicLongArray(KINDS * GENERATIONS);
  /** Per kind and generation of the decision: the regrets of those decisions. */
  private final AtomicLongArray regretted = new AtomicLongArray(KINDS * GENERATIONS);
  private final int mask;
  private final long generationLength;
  /** Decisions remembered; decision n (from 1) belongs to generation (n - 1) / length. */
  private final AtomicLong decisions = new AtomicLong();

  /** @param expectedBlocks blocks the L2 holds when full */
  Regrets(long expectedBlocks) {
    int size = tableSize(expectedBlocks);
    this.table = new AtomicIntegerArray(size);
    this.mask = size - 1;
    this.generationLength = size / 2;
  }

  /**
   * Remembers that {@code hash}'s key was turned away ({@link #REJECTED},
   * {@link #REJECTED_REREAD}) or pushed out ({@link #DISPLACED}, {@link #DISPLACED_REREAD}).
   *
   * @return the generation whose decisions this call made final (its horizon is over: no later
   *     regret can count against it), or -1; see {@link #decided} and {@link #regretted}
   */
  int remember(int hash, int kind) {
    long n = decisions.incrementAndGet();
    int gen = (int) ((n - 1) / generationLength) & GEN_MASK; // this decision's generation
    stamp(hash, kind, gen);
    if (n % generationLength != 0) {
      return -1;
    }
    // The last decision of its generation: clear the counts of the one after next (64
    // generations old, and not written until a whole generation from now).
    int clear = (gen + 2) & GEN_MASK;
    for (int k = 0; k < KINDS; k++) {
      decided.set(k * GENERATIONS + clear, 0);
      regretted.set(k * GENERATIONS + clear, 0);
    }
    return (gen - 1) & GEN_MASK;
  }

  /**
   * Remembers {@code hash}'s key as a winner ({@link #WON}) or the victim one beat
   * ({@link #BEATEN}) in the current generation, without counting a decision: generations
   * advance with the losing decisions alone, so the leniency's horizon does not depend on how
   * many candidates win.
   */
  void note(int hash, int kind) {
    stamp(hash, kind, (int) (decisions.get() / generationLength) & GEN_MASK);
  }

  /** Writes {@code hash}'s entry as a decision of {@code kind} in generation {@code gen}. */
  private void stamp(int hash, int kind, int gen) {
    int h = spread(hash);
    table.lazySet(h & mask, tag(h) | kind << KIND_SHIFT | gen);
    decided.incrementAndGet(kind * GENERATIONS + gen);
  }

  /** Decisions of {@code kind} made in generation {@code gen}. */
  long decided(int kind, int gen) {
    return decided.get(kind * GENERATIONS + gen);
  }

  /** Regrets counted so far of the decisions of {@code kind} made in generation {@code gen}. */
  long regretted(int kind, int gen) {
    return regretted.get(kind * GENERATIONS + gen);
  }

  /**
   * A miss on {@code hash}'s key: the kind of decision remembered for it, forgotten by this call,
   * or -1 if none is remembered within the horizon or it is remembered as {@link #WON} (a
   * winner that is missed was not worth its write: it stays unreturned).
   */
  int regret(int hash) {
    return consume(hash, false);
  }

  /**
   * A hit on {@code hash}'s key: counted (as {@link #regret} counts a miss) only if the key is
   * remembered as {@link #WON}; returns {@link #WON} then, else -1.
   */
  int hit(int hash) {
    return consume(hash, true);
  }

  private int consume(int hash, boolean hit) {
    int h = spread(hash);
    int i = h & mask;
    int e = table.get(i);
    int generation = (int) (decisions.get() / generationLength) & GEN_MASK;
    if (e == 0 || (e & ~(KIND_MASK | GEN_MASK)) != tag(h)
        || ((generation - e) & GEN_MASK) > 1) {
      return -1;
    }
    int kind = (e & KIND_MASK) >>> KIND_SHIFT;
    if ((kind == WON) != hit || !table.compareAndSet(i, e, 0)) {
      return -1;
    }
    regretted.incrementAndGet(kind * GENERATIONS + (e & GEN_MASK));
    return kind;
  }

  /** Decisions remembered so far (turned away and pushed out). */
  long decisions() {
    return decisions.get();
  }

  /** The entry {@code hash}'s key takes (for tests). */
  int slot(int hash) {
    return spread(hash) & mask;
  }

  int size() {
    return mask + 1;
  }

  long heapBytes() {
    return 16L + 4L * table.length() + 2 * (16L + 8L * KINDS * GENERATIONS) + 64;
  }

  private static int tag(int spread) {
    return (spread * 0x9E3779B9) & ~(KIND_MASK | GEN_MASK);
  }

  /**
   * The entries of a direct-mapped table with one per block the L2 holds when full: the power of
   * two at or above {@code expectedBlocks}, from {@value #MIN_SIZE} to {@value #MAX_SIZE}
   * (shared with {@link Recency}).
   */
  static int tableSize(long expectedBlocks) {
    long want = Math.max(MIN_SIZE, Math.min(MAX_SIZE, expectedBlocks));
    int size = Integer.highestOneBit((int) want);
    return size < want ? size << 1 : size;
  }

  /** Mixes a key's hash before it picks an entry (shared with {@link Recency}). */
  static int spread(int x) {
    x = ((x >>> 16) ^ x) * 0x45d9f3b;
    x = ((x >>> 16) ^ x) * 0x45d9f3b;
    return (x >>> 16) ^ x;
  }
}
