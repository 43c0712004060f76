/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static io.tiercache.core.config.CacheSettings.BLOCK_SIZE_HINT;
import static io.tiercache.core.config.CacheSettings.L1_HEAP_FRACTION;
import static io.tiercache.core.config.CacheSettings.L1_IN_MEMORY_FORCE;
import static io.tiercache.core.config.CacheSettings.L1_MAX_BLOCK_SIZE;
import static io.tiercache.core.config.CacheSettings.L1_MEMORY_SHARE;
import static io.tiercache.core.config.CacheSettings.L1_MEMORY_SIZE;
import static io.tiercache.core.config.CacheSettings.L1_MULTI_SHARE;
import static io.tiercache.core.config.CacheSettings.L1_SINGLE_SHARE;
import static io.tiercache.core.config.CacheSettings.L1_WINDOW_SHARE;

import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.Setting;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.config.Sizes;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The validated settings of one {@link LruTier}: built from a Hadoop {@code Configuration} with
 * HBase's keys, or through {@link LruTier#builder()}. Every value has passed the range check of
 * its {@link Setting}; cross-setting rules (the three shares add up to 1, the window fits in the
 * single share) are checked here with errors that name the keys involved.
 */
public final class LruConfig {
  /** The settings an L1 reads, in the order the startup log prints them. */
  static final List<Setting<?>> SETTINGS = Arrays.asList(L1_HEAP_FRACTION, L1_MEMORY_SIZE,
      BLOCK_SIZE_HINT, L1_SINGLE_SHARE, L1_MULTI_SHARE, L1_MEMORY_SHARE, L1_MAX_BLOCK_SIZE,
      L1_IN_MEMORY_FORCE, L1_WINDOW_SHARE, CacheSettings.STATS_PERIODS,
      CacheSettings.STATS_PERIOD_MINUTES);

  /**
   * Largest share of the heap the L1 may take: HBase requires block cache plus memstores to
   * leave at least 20% of the heap ({@code hbase.regionserver.global.memstore.size} +
   * {@code hfile.block.cache.size} &lt;= 0.8), so an L1 alone above 0.8 can never run.
   */
  static final double MAX_HEAP_SHARE = 0.8;

  /**
   * HBase's stats window ({@code hbase.blockcache.stats.*}); read from a Configuration only: a
   * tier built in code rolls no window (no timer thread).
   */
  int statsPeriods = 1;
  int statsPeriodMinutes;

  final long maxSize;
  final long blockSizeHint;
  final double singleShare;
  final double multiShare;
  final double memoryShare;
  final double windowShare;
  final long maxBlockSize;
  final boolean forceInMemory;

  LruConfig(long maxSize, long blockSizeHint, double singleShare, double multiShare,
      double memoryShare, double windowShare, long maxBlockSize, boolean forceInMemory) {
    if (maxSize <= 0) {
      throw new SettingException(L1_MEMORY_SIZE.key(), "the L1 needs a positive size, got "
          + maxSize + "; set " + L1_MEMORY_SIZE.key() + " to a size or " + L1_HEAP_FRACTION.key()
          + " to a heap fraction above 0.0");
    }
    this.maxSize = maxSize;
    this.blockSizeHint = BLOCK_SIZE_HINT.check(blockSizeHint);
    this.singleShare = L1_SINGLE_SHARE.check(singleShare);
    this.multiShare = L1_MULTI_SHARE.check(multiShare);
    this.memoryShare = L1_MEMORY_SHARE.check(memoryShare);
    this.windowShare = L1_WINDOW_SHARE.check(windowShare);
    this.maxBlockSize = L1_MAX_BLOCK_SIZE.check(maxBlockSize);
    this.forceInMemory = forceInMemory;
    double sum = singleShare + multiShare + memoryShare;
    if (Math.abs(sum - 1.0) > 1e-6) {
      throw new SettingException(L1_SINGLE_SHARE.key(), L1_SINGLE_SHARE.key() + " ("
          + singleShare + ") + " + L1_MULTI_SHARE.key() + " (" + multiShare + ") + "
          + L1_MEMORY_SHARE.key() + " (" + memoryShare + ") must add up to 1.0, got " + sum);
    }
    if (windowShare > singleShare) {
      throw new SettingException(L1_WINDOW_SHARE.key(), "'" + windowShare
          + "' is not valid; expected a number from 0.0 to " + L1_SINGLE_SHARE.key() + " ("
          + singleShare + ")");
    }
  }

  /**
   * Reads an L1's settings from {@code conf}. The size is {@code hfile.block.cache.memory.size}
   * when set, else {@code hfile.block.cache.size} times the maximum heap, as in HBase.
   *
   * @throws SettingException naming the key of the first invalid value
   */
  public static LruConfig from(Configuration conf) {
    return from(conf, Runtime.getRuntime().maxMemory());
  }

  /** As {@link #from(Configuration)} for a JVM whose maximum heap is {@code maxHeap} bytes. */
  static LruConfig from(Configuration conf, long maxHeap) {
    long explicit = L1_MEMORY_SIZE.get(conf);
    double fraction = L1_HEAP_FRACTION.get(conf);
    long maxSize = explicit > 0 ? explicit : (long) (maxHeap * fraction);
    if (maxSize <= 0) {
      throw new SettingException(L1_HEAP_FRACTION.key(), "'" + fraction
          + "' leaves the L1 no memory; expected a number above 0.0 and up to 1.0, or set "
          + L1_MEMORY_SIZE.key());
    }
    long limit = (long) (maxHeap * MAX_HEAP_SHARE);
    if (maxSize > limit) {
      String key = explicit > 0 ? L1_MEMORY_SIZE.key() : L1_HEAP_FRACTION.key();
      throw new SettingException(key, "'" + (explicit > 0 ? Sizes.format(explicit) : fraction)
          + "' makes the L1 " + Sizes.format(maxSize) + ", more than " + MAX_HEAP_SHARE
          + " of the maximum heap (-Xmx " + Sizes.format(maxHeap) + "); expected at most "
          + Sizes.format(limit) + " (HBase leaves at least 20% of the heap to everything but "
          + "the block cache and memstores)");
    }
    LruConfig config = new LruConfig(maxSize, BLOCK_SIZE_HINT.get(conf),
        L1_SINGLE_SHARE.get(conf), L1_MULTI_SHARE.get(conf), L1_MEMORY_SHARE.get(conf),
        L1_WINDOW_SHARE.get(conf), L1_MAX_BLOCK_SIZE.get(conf), L1_IN_MEMORY_FORCE.get(conf));
    config.statsPeriods = CacheSettings.STATS_PERIODS.get(conf);
    config.statsPeriodMinutes = CacheSettings.STATS_PERIOD_MINUTES.get(conf);
    return config;
  }

  /**
   * The settings an L1 can change at run time ({@code onConfigurationChange}): all but its size,
   * which HBase's HeapMemoryManager owns ({@code setMaxSize}).
   */
  static final List<Setting<?>> RUNTIME = Arrays.asList(BLOCK_SIZE_HINT, L1_SINGLE_SHARE,
      L1_MULTI_SHARE, L1_MEMORY_SHARE, L1_MAX_BLOCK_SIZE, L1_IN_MEMORY_FORCE, L1_WINDOW_SHARE);

  /** The size settings, read at start-up only. */
  static final List<Setting<?>> START_ONLY = Arrays.asList(L1_HEAP_FRACTION, L1_MEMORY_SIZE,
      CacheSettings.STATS_PERIODS, CacheSettings.STATS_PERIOD_MINUTES);

  /**
   * This L1's settings re-read from {@code conf}, keeping its size {@code maxSize}.
   *
   * @throws SettingException as at start-up, for the first invalid value
   */
  static LruConfig reread(Configuration conf, long maxSize) {
    return new LruConfig(maxSize, BLOCK_SIZE_HINT.get(conf), L1_SINGLE_SHARE.get(conf),
        L1_MULTI_SHARE.get(conf), L1_MEMORY_SHARE.get(conf), L1_WINDOW_SHARE.get(conf),
        L1_MAX_BLOCK_SIZE.get(conf), L1_IN_MEMORY_FORCE.get(conf));
  }

  @Override
  public String toString() {
    return "maxSize=" + maxSize + ", blockSizeHint=" + blockSizeHint + ", shares(single/multi/"
        + "memory/window)=" + singleShare + "/" + multiShare + "/" + memoryShare + "/"
        + windowShare + ", maxBlockSize=" + maxBlockSize + ", forceInMemory=" + forceInMemory;
  }
}
