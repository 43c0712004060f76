/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.write;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;

/**
 * The L2's write-behind: the blocks {@code cacheBlock} accepted and not yet written (the pending
 * map, whose blocks are already hits), and the writer threads and queues ({@link Writers}) that
 * write them into slots.
 *
 * <h2>Invariants</h2>
 * A {@link Pending} holds one reference to its block. Whoever removes it from the map (the
 * writer after publishing or dropping it, an eviction, {@link #stop}) or takes it back from a
 * queue releases that reference; a block in a queue is also in the map until its writer is done.
 *
 * <h2>Concurrency</h2>
 * Thread safe: the map is concurrent; a key is published or removed under the L2's key stripe
 * lock ({@code BlockStore}), where {@link #remove(Pending)} decides which of the two wins.
 */
public final class WriteBehind {
  private final ConcurrentHashMap<BlockCacheKey, Pending> pending = new ConcurrentHashMap<>();
  private final Writers<Pending> writers;

  /**
   * Starts {@code threads} writers with queues of {@code queueLength}, each applying
   * {@code write} to the blocks queued on it.
   */
  public WriteBehind(String name, int threads, int queueLength, Consumer<Pending> write) {
    this.writers = new Writers<>(name, threads, queueLength, write);
  }

  /** The pending block of {@code key}, or null. */
  public Pending get(BlockCacheKey key) {
    return pending.get(key);
  }

  public boolean contains(BlockCacheKey key) {
    return pending.containsKey(key);
  }

  /** Records {@code p} as pending; false (nothing recorded) if its key already is. */
  public boolean add(Pending p) {
    return pending.putIfAbsent(p.key, p) == null;
  }

  /** Whether {@code p} is still its key's pending block (not evicted, not replaced). */
  public boolean isCurrent(Pending p) {
    return pending.get(p.key) == p;
  }

  /** Removes {@code p} if it is still its key's pending block; returns whether it was. */
  public boolean remove(Pending p) {
    return pending.remove(p.key, p);
  }

  /** Removes whatever block is pending for {@code key}; returns whether there was one. */
  public boolean remove(BlockCacheKey key) {
    return pending.remove(key) != null;
  }

  /** The keys pending now (a live view, weakly consistent). */
  public Set<BlockCacheKey> keys() {
    return pending.keySet();
  }

  /** Queues {@code p} on its key's writer; false if that queue is full. */
  public boolean offer(Pending p) {
    return writers.offer(Long.hashCode(p.key.getOffset()), p);
  }

  /**
   * Stops the writers and drops the blocks still queued (released here). A block a caller's
   * thread is writing is released by that thread.
   */
  public void stop() {
    for (Pending p : writers.stop()) {
      pending.remove(p.key, p);
      p.block.release();
    }
  }

  /** Forgets every pending block (shutdown, after {@link #stop}). */
  public void clear() {
    pending.clear();
  }

  /** Blocks until the queued writes are applied (up to {@code timeoutMs}); true if they were. */
  public boolean awaitIdle(long timeoutMs) throws InterruptedException {
    return writers.awaitIdle(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /** Blocks waiting in the writers' queues. */
  public int queued() {
    return writers.queued();
  }

  /** Writes whose failure a writer thread caught. */
  public long failures() {
    return writers.failures();
  }

  /** Heap bytes of the pending blocks (HBase's {@code heapSize}). O(pending). */
  public long heapBytes() {
    long queued = 0;
    for (Pending p : pending.values()) {
      queued += p.block.heapSize();
    }
    return queued;
  }
}
