/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.core.config.CacheSettings;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * What hot mode does with the L2 copy of a data block it promotes into the L1
 * ({@code tiercache.combined.hot.promotion}).
 */
public enum HotPromotion {
  /**
   * The L2 copy stays; the L1 holds a second copy and drops its data victims (they are still in
   * the L2). The L1 adds speed, not capacity.
   */
  COPY,
  /**
   * The L2 copy is freed as soon as the L1 holds the block; a data block the L1 evicts goes back
   * to the L2 through the L2's admission filter, or is dropped. Each data block lives in one
   * tier, so the L1's share adds capacity at once; a block the L1 evicts before it is read there
   * costs an L2 write (if admitted).
   */
  MOVE,
  /**
   * As {@link #MOVE}, but the L2 copy is freed only at the L1 copy's first hit: a copy the L1
   * evicts unread costs no L2 write, and until that first hit the block is held twice. Fewer L2
   * writes than {@code move} (device wear on the file, mmap and pmem engines), at the cost of the
   * capacity those pending copies hold twice.
   */
  MOVE_ON_HIT;

  /** The promotion {@code conf} selects; a bad value is a setting error naming the key. */
  public static HotPromotion from(Configuration conf) {
    return fromKey(CacheSettings.COMBINED_HOT_PROMOTION.get(conf));
  }

  /** The promotion named by a (validated) value of {@code tiercache.combined.hot.promotion}. */
  static HotPromotion fromKey(String key) {
    return valueOf(key.toUpperCase(Locale.ROOT).replace('-', '_'));
  }

  /** The value of {@code tiercache.combined.hot.promotion} for this promotion. */
  public String key() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Whether a promoted data block leaves the L2 (at once or at its first L1 hit). */
  boolean moves() {
    return this != COPY;
  }
}
