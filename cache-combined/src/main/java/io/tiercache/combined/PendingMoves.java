/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;

/**
 * Hot mode's {@code move-on-hit} promotion: the data blocks copied into the L1 whose L2 copy is
 * still to be freed at their first L1 hit. A hit on an L1 data block asks here (an on-heap set)
 * instead of looking into the L2's off-heap index: most L1 hits are on blocks moved already.
 *
 * <h2>Invariants</h2>
 * A key leaves the set at its first L1 hit ({@link #firstHit}, which then frees the L2 copy),
 * when the L1 hands it off or evicts it ({@link #left}), or when the set is cleared for size.
 * An entry is only ever acted on at an L1 hit, that is while the L1 holds the block, so a stale
 * entry (a block evicted with its whole file, a promotion the L1 refused) frees nothing the L1
 * does not hold. Losing an entry (a clear, a race of a hand-off with a new promotion of the same
 * key) leaves the L2 copy in place: the block is then held twice, as {@code copy} promotion
 * holds it, until the L2's CLOCK drops it; bytes served are never affected.
 *
 * <h2>Concurrency</h2>
 * Any thread; a concurrent set.
 *
 * <h2>Memory</h2>
 * At most {@value #MAX_KEYS} keys (the set is cleared when full: about 2 MB of set entries and
 * keys at worst); normally no more than the L1 holds blocks promoted and not yet read.
 */
final class PendingMoves {
  static final int MAX_KEYS = 1 << 14;

  private final Set<BlockCacheKey> keys = ConcurrentHashMap.newKeySet();

  /** {@code key} is being copied into the L1; its L2 copy is freed at its first L1 hit. */
  void promoted(BlockCacheKey key) {
    if (keys.size() >= MAX_KEYS) {
      keys.clear();
    }
    keys.add(key);
  }

  /** An L1 hit on {@code key}: whether it is the first since its promotion (free the L2 copy). */
  boolean firstHit(BlockCacheKey key) {
    return !keys.isEmpty() && keys.remove(key);
  }

  /** The L1 let {@code key} go before its first hit (a capacity victim or an eviction). */
  void left(BlockCacheKey key) {
    keys.remove(key);
  }

  /** Keys waiting for their first L1 hit (tests). */
  int size() {
    return keys.size();
  }
}
