/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockPriority;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.util.ClassSize;

/**
 * One cached block in the L1: the block, its weight, and its place in the policy's queues.
 *
 * <p>Immutable fields are set at insert. {@code queue}, {@code prev} and {@code next} are guarded
 * by the L1's eviction lock; {@code queue} is volatile so that the web UI iterator may read the
 * priority without the lock.
 */
final class Node {
  static final byte WINDOW = 0;
  static final byte PROBATION = 1;
  static final byte PROTECTED = 2;
  static final byte MEMORY = 3;
  static final byte REMOVED = 4;

  /** Heap cost of a node and its map entry, on top of the block and the key. */
  static final long OVERHEAD = ClassSize.align(ClassSize.OBJECT + 4 * ClassSize.REFERENCE
      + 2 * Long.BYTES + Integer.BYTES + 5) + ClassSize.CONCURRENT_HASHMAP_ENTRY;

  final BlockCacheKey key;
  final Cacheable block;
  final long weight;
  final int hash;
  final boolean data;
  /**
   * Cached with the in-memory priority (an IN_MEMORY family's block, or a meta block): what a
   * capacity victim keeps when it is handed to the victim cache. {@code queue} cannot tell it
   * then, being {@code REMOVED} by the time the victim leaves the lock.
   */
  final boolean inMemory;
  final long cachedTimeNanos;

  volatile byte queue;
  /**
   * In the L1's write buffer, not yet in the map and the policy: a reader that finds it there
   * serves it but records no access. Cleared under the eviction lock when it is applied.
   */
  volatile boolean queued;
  /**
   * Whether the last hit offered to the read buffer was one of a sample (a quiet L1 records one
   * in {@value LruTier#HOT_HIT_SAMPLE} hits on PROTECTED blocks, one in
   * {@value LruTier#MEMORY_HIT_SAMPLE} on MEMORY blocks), so the policy counts it that many times
   * ({@link LruTier#sampleRate}). Written without a lock by the hit, read under the eviction lock
   * by the drain: a hint, as the buffer's events are. It is the node's, not each recorded hit's:
   * when the L1 turns quiet, the node's hits still waiting in the buffer from before count as
   * sampled too (at most a stripe's depth per stripe, once per change of state; the other way,
   * waiting sampled hits count once). The climber and the quiet period see that as a short burst
   * of hits; the sketch's counters stop at 15.
   */
  boolean sampled;
  Node prev;
  Node next;

  Node(BlockCacheKey key, Cacheable block, boolean data, byte queue) {
    this.key = key;
    this.block = block;
    this.weight = block.heapSize() + key.heapSize() + OVERHEAD;
    this.hash = key.hashCode();
    this.data = data;
    this.inMemory = queue == MEMORY;
    this.cachedTimeNanos = System.nanoTime();
    this.queue = queue;
  }

  BlockPriority priority() {
    switch (queue) {
      case PROTECTED:
        return BlockPriority.MULTI;
      case MEMORY:
        return BlockPriority.MEMORY;
      default:
        return BlockPriority.SINGLE;
    }
  }
}
