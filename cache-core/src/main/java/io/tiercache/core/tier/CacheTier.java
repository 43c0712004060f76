/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.tier;

import io.tiercache.core.stats.TierStats;
import org.apache.hadoop.hbase.io.hfile.BlockCache;

/**
 * The tier SPI: what every TierCache tier (the on-heap L1, the off-heap/file/pmem L2) offers on
 * top of HBase's {@link BlockCache}.
 *
 * <p>A tier is a complete HBase block cache on its own: it has a public constructor taking a
 * Hadoop {@code Configuration}, so HBase can load it by class name, and the combined cache
 * composes tiers through this interface only.
 *
 * <p>Reference counting: a block returned by {@code getBlock} holds a reference the caller must
 * {@code release()}; it stays valid, with the bytes it had, until then, even if the tier evicts
 * it meanwhile.
 */
public interface CacheTier extends BlockCache {
  /** A short name for logs and metrics, e.g. {@code L1} or {@code L2-offheap}. */
  String name();

  @Override
  TierStats getStats();

  /**
   * Verifies the tier's internal accounting (sizes, counts, index and policy agree). Tests call
   * it after every test; operators never need to.
   *
   * @throws IllegalStateException naming the first invariant found broken
   */
  void checkInvariants();
}
