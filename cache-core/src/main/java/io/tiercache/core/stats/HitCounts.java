/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.stats;

import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.hadoop.hbase.io.hfile.BlockType;

/**
 * A tier's hit counters, laid out so that a hit costs one atomic add on a cache line of the
 * calling thread's own stripe. HBase's {@code CacheStats.hit} adds to four {@code LongAdder}s
 * per hit (all hits, primary, caching, the block type's); on the L1's hit path, which is otherwise
 * a map lookup and a reference-count update, those four adds were a measurable share.
 *
 * <h2>Layout</h2>
 * A hit is counted once, in the slot of its combination of block kind, primary and caching flag;
 * every total HBase reads is a sum over the slots of the combinations it covers:
 * <pre>
 *   slot = kind * 4 + (primary ? 2 : 0) + (caching ? 1 : 0)       KINDS * 4 = 48 slots
 *   kind: 0 = no block type, 1 = a type CacheStats does not count, 2 = DATA or ENCODED_DATA,
 *         3.. = LEAF_INDEX, BLOOM_CHUNK, META, INTERMEDIATE_INDEX, ROOT_INDEX, FILE_INFO,
 *               GENERAL_BLOOM_META, DELETE_FAMILY_BLOOM_META, TRAILER
 *
 *   counts: | pad x8 | stripe 0: 48 slots | pad x8 | stripe 1: 48 slots | pad x8 | ...  (longs)
 * </pre>
 * A stripe is six 64-byte lines followed by one line of padding, so two stripes never share a
 * line. A thread's stripe is a multiplicative hash of its id (as the L1's read buffer picks its
 * stripe); two threads that hash to one stripe still count exactly, they only contend.
 *
 * <h2>Concurrency</h2>
 * Any thread may count and read. A read sums the slots one by one: it sees every hit that
 * happened before it began and some of those counted while it runs, as {@code LongAdder.sum}
 * does; the totals HBase derives (hits, primary, caching, per type) may therefore disagree by the
 * hits counted during one read.
 */
final class HitCounts {
  private static final int KIND_NONE = 0;
  private static final int KIND_OTHER = 1;
  /** The block types CacheStats counts hits of, from kind 2 on (DATA stands for ENCODED_DATA). */
  private static final BlockType[] COUNTED = {BlockType.DATA, BlockType.LEAF_INDEX,
      BlockType.BLOOM_CHUNK, BlockType.META, BlockType.INTERMEDIATE_INDEX, BlockType.ROOT_INDEX,
      BlockType.FILE_INFO, BlockType.GENERAL_BLOOM_META, BlockType.DELETE_FAMILY_BLOOM_META,
      BlockType.TRAILER};
  private static final int KINDS = 2 + COUNTED.length;
  private static final int SLOTS = KINDS * 4;
  private static final int PRIMARY = 2;
  private static final int CACHING = 1;
  /** Longs per 64-byte line. */
  private static final int LINE = 8;
  /** Longs from one stripe's first slot to the next's: the slots rounded up to lines, plus one. */
  private static final int STRIPE_SPACING = (SLOTS + LINE - 1) / LINE * LINE + LINE;
  /** Kind of each {@link BlockType}, by ordinal. */
  private static final byte[] KIND_OF = new byte[BlockType.values().length];

  static {
    for (BlockType t : BlockType.values()) {
      KIND_OF[t.ordinal()] = (byte) KIND_OTHER;
    }
    for (int i = 0; i < COUNTED.length; i++) {
      KIND_OF[COUNTED[i].ordinal()] = (byte) (2 + i);
    }
    KIND_OF[BlockType.ENCODED_DATA.ordinal()] = KIND_OF[BlockType.DATA.ordinal()];
  }

  private final int mask;
  private final AtomicLongArray counts;

  HitCounts() {
    int n = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 4 - 1))
        << 1;
    int stripes = Math.max(8, Math.min(64, n));
    mask = stripes - 1;
    counts = new AtomicLongArray(LINE + stripes * STRIPE_SPACING);
  }

  /** Counts one hit, as {@code CacheStats.hit} would. */
  void hit(boolean caching, boolean primary, BlockType type) {
    int kind = type == null ? KIND_NONE : KIND_OF[type.ordinal()];
    int slot = (kind << 2) | (primary ? PRIMARY : 0) | (caching ? CACHING : 0);
    counts.getAndIncrement(stripeBase() + slot);
  }

  private int stripeBase() {
    long id = Thread.currentThread().getId();
    int stripe = (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    return LINE + stripe * STRIPE_SPACING;
  }

  /** All hits. */
  long total() {
    return sum(0, KINDS, 0);
  }

  /** Hits on primary replicas' blocks. */
  long primary() {
    return sum(0, KINDS, PRIMARY);
  }

  /** Hits of lookups that would have cached the block. */
  long caching() {
    return sum(0, KINDS, CACHING);
  }

  /** Hits on blocks of {@code type}, counted as CacheStats counts them (DATA includes ENCODED). */
  long of(BlockType type) {
    int kind = KIND_OF[type.ordinal()];
    return sum(kind, kind + 1, 0);
  }

  /** Sum of the slots of kinds {@code [from, to)} whose flags include {@code flags}. */
  private long sum(int from, int to, int flags) {
    long total = 0;
    for (int base = LINE; base < counts.length(); base += STRIPE_SPACING) {
      for (int slot = from << 2; slot < to << 2; slot++) {
        if ((slot & flags) == flags) {
          total += counts.get(base + slot);
        }
      }
    }
    return total;
  }
}
