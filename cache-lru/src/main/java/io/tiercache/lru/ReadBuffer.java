/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * A lossy, striped buffer of read events, so a cache hit records its access without taking the
 * eviction lock (the scheme Caffeine's {@code BoundedBuffer} uses).
 *
 * <p>Each reading thread hashes to one stripe, a ring of {@value #STRIPE_SIZE} slots with its own
 * write and read counters. {@link #offer} claims a slot by CAS on the write counter and publishes
 * the element with a lazy set; when the stripe is full or the CAS loses, the event is dropped.
 * Dropping is fine: access order is a hint for the policy, never a correctness matter.
 * The hit that finds its stripe full drains that stripe ({@link #drainOwnTo}; every so often
 * all of them, see {@code LruTier}), so the depth sets how often a hit pays for a drain and how
 * long one takes: with 16 slots (Caffeine's depth; its drains run on an executor) a drain fell
 * on ~1 % of the L1's hits in the showdown's 1x cells and set its p99; with 64, on a quarter as
 * many (docs/benchmarks.md, "A read buffer four times as deep"). Until a drain, a stripe keeps
 * up to that many recorded nodes (and their blocks) reachable.
 *
 * <h2>Memory layout</h2>
 * Two flat arrays instead of an object per stripe, so that no two stripes (and no stripe's two
 * counters) share a 64-byte cache line: a hit writes only its own stripe's lines, and two threads
 * reading at once do not invalidate each other's.
 * <pre>
 *   counters: | pad x8 | w0 | pad x7 | r0 | pad x7 | w1 | pad x7 | r1 | ...  (longs)
 *   slots:    | pad x96 | s0[0..63] | pad x32 | s1[0..63] | pad x32 | ...  (references)
 * </pre>
 *
 * <h2>Concurrency</h2>
 * Any number of threads {@link #offer}; only one thread at a time (the holder of the L1's eviction
 * lock) calls {@link #drainTo} or {@link #drainOwnTo}. A slot written but not yet published reads
 * as null and ends the drain of that stripe until the next one. A drained slot is cleared at
 * once, so the buffer never keeps a node (and its block) reachable after the policy has seen it.
 */
final class ReadBuffer<E> {
  static final int STRIPE_SIZE = 64;
  private static final int STRIPE_MASK = STRIPE_SIZE - 1;
  /** Longs from one counter to the next: 64 bytes. */
  private static final int COUNTER_SPACING = 8;
  /** Slots from one stripe to the next: 64 used, 32 padding (128 bytes with 4-byte references). */
  private static final int SLOT_SPACING = STRIPE_SIZE + 32;

  /** Result of {@link #offer}: recorded. */
  static final int SUCCESS = 0;
  /** Result of {@link #offer}: the stripe is full; the caller should try to drain. */
  static final int FULL = 1;
  /** Result of {@link #offer}: lost a race for the slot; the event was dropped. */
  static final int FAILED = 2;

  private final int stripes;
  private final int mask;
  /** Stripe {@code s}: writes at {@code (2s + 1) * COUNTER_SPACING}, reads one spacing on. */
  private final AtomicLongArray counters;
  /** Stripe {@code s}: slots from {@code (s + 1) * SLOT_SPACING}. */
  private final AtomicReferenceArray<E> slots;

  ReadBuffer() {
    int n = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 4 - 1))
        << 1;
    stripes = Math.min(64, n);
    mask = stripes - 1;
    // One spacing of padding before the first and after the last stripe too: the arrays' headers
    // and whatever the allocator puts next to them are not shared with a stripe either.
    counters = new AtomicLongArray((2 * stripes + 3) * COUNTER_SPACING);
    slots = new AtomicReferenceArray<>((stripes + 2) * SLOT_SPACING);
  }

  private static int writesAt(int stripe) {
    return (2 * stripe + 1) * COUNTER_SPACING;
  }

  private static int readsAt(int stripe) {
    return (2 * stripe + 2) * COUNTER_SPACING;
  }

  private static int slotAt(int stripe, long index) {
    return (stripe + 1) * SLOT_SPACING + (int) (index & STRIPE_MASK);
  }

  /** The calling thread's stripe: a multiplicative hash of its id. */
  private int stripe() {
    return stripeOf(Thread.currentThread().getId());
  }

  /** The stripe of the thread with this id. */
  int stripeOf(long threadId) {
    return (int) ((threadId * 0x9E3779B97F4A7C15L) >>> 40) & mask;
  }

  int offer(E e) {
    int s = stripe();
    int w = writesAt(s);
    long head = counters.get(readsAt(s));
    long tail = counters.get(w);
    if (tail - head >= STRIPE_SIZE) {
      return FULL;
    }
    if (!counters.compareAndSet(w, tail, tail + 1)) {
      return FAILED;
    }
    slots.lazySet(slotAt(s, tail), e);
    return SUCCESS;
  }

  /** Stripes in this buffer. */
  int stripes() {
    return stripes;
  }

  /** Hands every published event to {@code consumer}; caller holds the eviction lock. */
  void drainTo(Consumer<E> consumer) {
    for (int s = 0; s < stripes; s++) {
      drainStripe(s, consumer);
    }
  }

  /**
   * Hands the published events of the calling thread's stripe to {@code consumer}; caller holds
   * the eviction lock.
   */
  void drainOwnTo(Consumer<E> consumer) {
    drainStripe(stripe(), consumer);
  }

  private void drainStripe(int s, Consumer<E> consumer) {
    int r = readsAt(s);
    long head = counters.get(r);
    long tail = counters.get(writesAt(s));
    while (head < tail) {
      int index = slotAt(s, head);
      E e = slots.get(index);
      if (e == null) {
        break;
      }
      slots.lazySet(index, null);
      consumer.accept(e);
      head++;
    }
    counters.lazySet(r, head);
  }
}
