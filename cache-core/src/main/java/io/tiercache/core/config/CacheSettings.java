/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.StringJoiner;
import org.apache.hadoop.conf.Configuration;

/**
 * Every configuration key TierCache reads, each defined once with its type, unit, default and
 * accepted range.
 *
 * <p>HBase's own keys keep their HBase meaning wherever the concept is the same, so an existing
 * {@code hbase-site.xml} works unchanged; settings that are new to TierCache live under
 * {@code tiercache.}. {@code docs/configuration.md} documents each key listed by {@link #all()},
 * and a test checks that the two agree.
 */
public final class CacheSettings {
  private static final List<Setting<?>> ALL = new ArrayList<>();

  private CacheSettings() {}

  private static <T> Setting<T> define(Setting<T> setting) {
    ALL.add(setting);
    return setting;
  }

  // ---------------------------------------------------------------------------------------------
  // L1 sizing (HBase keys)
  // ---------------------------------------------------------------------------------------------

  /** Share of the maximum heap given to the on-heap L1; HBase's key and default. */
  public static final Setting<Double> L1_HEAP_FRACTION = define(Setting.fraction(
      "hfile.block.cache.size", 0.4, 0.0, 1.0,
      "Fraction of the maximum heap (-Xmx) used by the on-heap L1 when "
          + "hfile.block.cache.memory.size is not set."));

  /** Explicit L1 size in bytes; overrides the heap fraction when positive (HBase 2.6 key). */
  public static final Setting<Long> L1_MEMORY_SIZE = define(Setting.bytes(
      "hfile.block.cache.memory.size", 0L, 0L, Long.MAX_VALUE / 2,
      "Size of the on-heap L1. When set (> 0) it overrides hfile.block.cache.size."));

  /** Typical block size; sizes the L1's frequency sketch. HBase's key and default. */
  public static final Setting<Long> BLOCK_SIZE_HINT = define(Setting.bytes(
      "hbase.blockcache.minblocksize", 64L * 1024, 1024L, 16L * 1024 * 1024,
      "Expected block size. The L1 sizes its frequency sketch for maxSize / this many blocks."));

  // ---------------------------------------------------------------------------------------------
  // L1 priorities and policy (HBase LruBlockCache keys, TierCache window)
  // ---------------------------------------------------------------------------------------------

  /** Share of the L1 for blocks accessed once. */
  public static final Setting<Double> L1_SINGLE_SHARE = define(Setting.fraction(
      "hbase.lru.blockcache.single.percentage", 0.25, 0.0, 1.0,
      "Share of the L1 for blocks read once (single-access priority). The three shares must add "
          + "up to 1.0."));

  /** Share of the L1 for blocks accessed more than once. */
  public static final Setting<Double> L1_MULTI_SHARE = define(Setting.fraction(
      "hbase.lru.blockcache.multi.percentage", 0.50, 0.0, 1.0,
      "Share of the L1 for blocks read more than once (multi-access priority)."));

  /** Share of the L1 for in-memory column families and index/bloom blocks. */
  public static final Setting<Double> L1_MEMORY_SHARE = define(Setting.fraction(
      "hbase.lru.blockcache.memory.percentage", 0.25, 0.0, 1.0,
      "Share of the L1 for in-memory blocks: blocks of IN_MEMORY column families and "
          + "index/bloom (meta) blocks."));

  /** Blocks whose heap size exceeds this are refused by the L1 and counted as failed inserts. */
  public static final Setting<Long> L1_MAX_BLOCK_SIZE = define(Setting.bytes(
      "hbase.lru.max.block.size", 16L * 1024 * 1024, 1024L, 1L << 30,
      "Largest block the L1 accepts; larger blocks are refused and counted as failed inserts."));

  /** When true, in-memory blocks are evicted only once nothing else is left. */
  public static final Setting<Boolean> L1_IN_MEMORY_FORCE = define(Setting.bool(
      "hbase.lru.rs.inmemoryforcemode", false,
      "When true, in-memory blocks may grow past their share: single- and multi-access blocks "
          + "are evicted first."));

  /** Share of the single-access space that is the admission window (W-TinyLFU). */
  public static final Setting<Double> L1_WINDOW_SHARE = define(Setting.fraction(
      "tiercache.lru.window.percentage", 0.01, 0.0, 0.5,
      "Share of the L1 that admits every new block before the frequency filter decides whether "
          + "it may displace an older single-access block. Must not exceed the single share."));

  /** Returns every key, in definition order. */
  public static List<Setting<?>> all() {
    return Collections.unmodifiableList(ALL);
  }

  /**
   * Returns one line per setting, {@code key=value}, marking the ones left at their default;
   * tiers log this once at startup.
   */
  public static String describe(Configuration conf, List<Setting<?>> settings) {
    StringJoiner out = new StringJoiner(", ");
    for (Setting<?> s : settings) {
      out.add(describeOne(conf, s));
    }
    return out.toString();
  }

  private static <T> String describeOne(Configuration conf, Setting<T> s) {
    return s.key() + "=" + s.format(s.get(conf)) + (s.isSet(conf) ? "" : " (default)");
  }
}
