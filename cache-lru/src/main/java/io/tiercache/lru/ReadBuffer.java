/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import java.util.concurrent.atomic.AtomicLong;
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
 *
 * <h2>Concurrency</h2>
 * Any number of threads {@link #offer}; only one thread at a time (the holder of the L1's eviction
 * lock) calls {@link #drainTo}. A slot written but not yet published reads as null and ends the
 * drain of that stripe until the next one.
 */
final class ReadBuffer<E> {
  static final int STRIPE_SIZE = 16;
  private static final int STRIPE_MASK = STRIPE_SIZE - 1;

  /** Result of {@link #offer}: recorded. */
  static final int SUCCESS = 0;
  /** Result of {@link #offer}: the stripe is full; the caller should try to drain. */
  static final int FULL = 1;
  /** Result of {@link #offer}: lost a race for the slot; the event was dropped. */
  static final int FAILED = 2;

  private final Stripe<E>[] stripes;
  private final int mask;

  private static final class Stripe<E> {
    final AtomicLong writes = new AtomicLong();
    final AtomicLong reads = new AtomicLong();
    final AtomicReferenceArray<E> slots = new AtomicReferenceArray<>(STRIPE_SIZE);
  }

  @SuppressWarnings("unchecked")
  ReadBuffer() {
    int n = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 4 - 1))
        << 1;
    n = Math.min(64, n);
    stripes = new Stripe[n];
    for (int i = 0; i < n; i++) {
      stripes[i] = new Stripe<>();
    }
    mask = n - 1;
  }

  int offer(E e) {
    long id = Thread.currentThread().getId();
    Stripe<E> s = stripes[(int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask];
    long head = s.reads.get();
    long tail = s.writes.get();
    if (tail - head >= STRIPE_SIZE) {
      return FULL;
    }
    if (!s.writes.compareAndSet(tail, tail + 1)) {
      return FAILED;
    }
    s.slots.lazySet((int) (tail & STRIPE_MASK), e);
    return SUCCESS;
  }

  /** Hands every published event to {@code consumer}; caller holds the eviction lock. */
  void drainTo(Consumer<E> consumer) {
    for (Stripe<E> s : stripes) {
      long head = s.reads.get();
      long tail = s.writes.get();
      while (head < tail) {
        int index = (int) (head & STRIPE_MASK);
        E e = s.slots.get(index);
        if (e == null) {
          break;
        }
        s.slots.lazySet(index, null);
        consumer.accept(e);
        head++;
      }
      s.reads.lazySet(head);
    }
  }
}
