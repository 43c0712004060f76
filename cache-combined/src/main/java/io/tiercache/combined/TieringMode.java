/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.core.config.CacheSettings;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * How {@link TieredBlockCache} shares blocks between its L1 and its L2
 * ({@code tiercache.combined.mode}).
 */
public enum TieringMode {
  /**
   * HBase's {@code CombinedBlockCache}: index and bloom blocks in the L1, data blocks in the L2,
   * each block in one tier; hits and misses accounted as HBase does (a data block is an L2
   * request unless it happens to be in the L1).
   */
  HBASE,
  /**
   * Every block enters the L1; the L1's eviction victims move to the L2; an L2 hit that passes
   * the promotion rule moves the block back to the L1 (and out of the L2). A block is in one tier
   * at a time, so the two tiers add up to their sum in capacity.
   */
  EXCLUSIVE,
  /**
   * Every block is written to both tiers; an L2 hit that passes the promotion rule is copied into
   * the L1. The L1 is a hot subset of the L2, which survives L1 eviction without rewriting.
   */
  INCLUSIVE,
  /**
   * HBase's placement (index and bloom blocks in the L1, data blocks in the L2) and HBase's hit
   * accounting, plus: an L2 hit on a data block that passes the promotion rule is also copied into
   * the L1, where the L1's own admission policy keeps it only while it is hotter than the L1's
   * victims. The hottest data blocks are then served from the heap without an off-heap read.
   * What becomes of the promoted block's L2 copy is {@link HotPromotion}'s choice (by default it
   * is freed, and the L1's data victims go back to the L2 through its admission filter).
   */
  HOT;

  /** The mode {@code conf} selects; a bad value is a setting error naming the key. */
  public static TieringMode from(Configuration conf) {
    return valueOf(CacheSettings.COMBINED_MODE.get(conf).toUpperCase(Locale.ROOT));
  }

  /** The value of {@code tiercache.combined.mode} for this mode. */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
