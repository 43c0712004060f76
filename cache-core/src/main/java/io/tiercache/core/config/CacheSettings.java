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
 * {@code tiercache.}. HBase 2.6 block-cache keys that TierCache accepts but does not read are
 * declared here too, with the reason ({@link #ignored()}); {@link ConfigReport} reports them, and
 * unknown keys, at start-up. {@code docs/configuration.md} documents each key listed by
 * {@link #all()} and {@link #ignored()}, and a test checks that the two agree.
 */
public final class CacheSettings {
  private static final List<Setting<?>> ALL = new ArrayList<>();
  private static final List<IgnoredKey> IGNORED = new ArrayList<>();

  /**
   * The L2's default slab: 32 slots of 65,792 bytes (2 MB and 8 KB, 514 pages). A 64 KB HFile
   * data block is never shorter than 64 KB of cells plus its 33-byte header, its checksums and the
   * 13 bytes of metadata a serialized block carries (HBase closes a block once its cells reach the
   * block size), so a 2 MB slab holds 31 of them and a 4 MB one 63; this slab holds 32 when a
   * block's overrun (its last cell, checksums, header) is at most 256 bytes. Half the 4112 KB of
   * 64 slots before: each size class holds memory in steps of half as much, which a small L2 of
   * many block sizes strands at 1x (a class whose whole population is a fraction of a slab).
   * Measured on the showdown's cells at 239 MB of L2 (issue 11, docs/benchmarks.md, "Slabs of 32
   * slots"): +0.4 to +0.8 pt of hit ratio in the {@code zipf-mixed} cells at 1x, +0.2 to +0.5 at
   * 3x and 9x, the 64 KB cells level. Against 4112 KB slabs of 64 slots: 57 more 64 KB blocks
   * held, +1.3 pt at 1x ("Slabs of 64 slots").
   */
  public static final int DEFAULT_SLAB_SIZE = 32 * 65_792;

  /** A slab is whole pages of this size, so that a slab of a mapped engine starts on a page. */
  public static final int SLAB_PAGE = 4096;

  /**
   * The L2's default bucket sizes: for each of 31 slot counts per slab of the default size, the
   * largest multiple of 256 that many slots fit in, so that a slab of the default size (or of a
   * multiple of it) leaves under 256 bytes per slot unused and each slot is as long as its count
   * allows. The counts follow HBase's fourteen sizes and five more below 33 KB (a count of 411
   * for 5 KB down to 35 for 58.5 KB: about the same sizes, up to 1.5 KB longer), 32 for 64.25 KB,
   * the 64 KB data blocks of small cells, and 31 for 66.25 KB, those of larger cells; then step
   * by 1.09 to 1.25 to 514 KB (4 slots, HBase's largest, 513 KB, with room) and 685.25 KB (3
   * slots), where HBase's sizes step by 1.33 to 1.5 (97, 129, 193, 257, 385, 513 KB). With the
   * 4112 KB slab before, 33 sizes stepped by 1.09 to 1.17 to 587.25 KB: half the slab keeps the
   * counts whose half is whole and gives up the odd ones. For the showdown's log-uniform mix of
   * 4 to 512 KB, blocks fill 92 % of the slot bytes they take (94 % with the 33 sizes, 84 % with
   * HBase's); the slabs a class holds beyond its blocks' needs count for more in a small L2
   * (measured: docs/benchmarks.md, "Slabs of 32 slots").
   */
  private static final int[] DEFAULT_BUCKET_SIZES = tiling(DEFAULT_SLAB_SIZE, 411, 293, 228, 186,
      146, 120, 97, 76, 62, 49, 41, 35, 32, 31, 28, 25, 23, 21, 18, 16, 14, 12, 11, 10, 9, 8, 7, 6,
      5, 4, 3);

  /** For each count, the largest multiple of 256 that {@code count} times fits in a slab. */
  private static int[] tiling(int slab, int... counts) {
    int[] sizes = new int[counts.length];
    for (int i = 0; i < counts.length; i++) {
      sizes[i] = slab / counts[i] / 256 * 256;
    }
    return sizes;
  }

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
      "Fraction of the maximum heap (`-Xmx`) used by the L1 when "
          + "`hfile.block.cache.memory.size` is not set. A value that leaves the L1 no memory "
          + "(0.0) is an error for `LruTier`."));

  /** Explicit L1 size in bytes; overrides the heap fraction when positive (HBase 2.6 key). */
  public static final Setting<Long> L1_MEMORY_SIZE = define(Setting.bytes(
      "hfile.block.cache.memory.size", 0L, 0L, Long.MAX_VALUE / 2,
      "Size of the L1. When set (> 0) it overrides `hfile.block.cache.size` (HBase 2.6 "
          + "semantics)."));

  /** Typical block size; sizes the L1's frequency sketch. HBase's key and default. */
  public static final Setting<Long> BLOCK_SIZE_HINT = define(Setting.bytes(
      "hbase.blockcache.minblocksize", 64L * 1024, 1024L, 16L * 1024 * 1024,
      "Expected block size. The L1 sizes its frequency sketch for `maxSize / minblocksize` "
          + "blocks and its index map likewise; the L2 sizes its admission sketch for its "
          + "capacity / minblocksize blocks."));

  // ---------------------------------------------------------------------------------------------
  // L1 priorities and policy (HBase LruBlockCache keys, TierCache window)
  // ---------------------------------------------------------------------------------------------

  /** Share of the L1 for blocks accessed once. */
  public static final Setting<Double> L1_SINGLE_SHARE = define(Setting.fraction(
      "hbase.lru.blockcache.single.percentage", 0.25, 0.0, 1.0,
      "Share of the L1 for blocks read once (single-access priority). The three shares must "
          + "add up to 1.0."));

  /** Share of the L1 for blocks accessed more than once. */
  public static final Setting<Double> L1_MULTI_SHARE = define(Setting.fraction(
      "hbase.lru.blockcache.multi.percentage", 0.50, 0.0, 1.0,
      "Share for blocks read more than once (multi-access priority)."));

  /** Share of the L1 for in-memory column families and index/bloom blocks. */
  public static final Setting<Double> L1_MEMORY_SHARE = define(Setting.fraction(
      "hbase.lru.blockcache.memory.percentage", 0.25, 0.0, 1.0,
      "Share for in-memory blocks: blocks of `IN_MEMORY` column families and index/bloom "
          + "(meta) blocks."));

  /** Blocks whose heap size exceeds this are refused by the L1 and counted as failed inserts. */
  public static final Setting<Long> L1_MAX_BLOCK_SIZE = define(Setting.bytes(
      "hbase.lru.max.block.size", 16L * 1024 * 1024, 1024L, 1L << 30,
      "Largest block (by heap size) the L1 accepts. Larger blocks are refused and counted "
          + "in `failedInserts`, never an error."));

  /** When true, in-memory blocks are evicted only once nothing else is left. */
  public static final Setting<Boolean> L1_IN_MEMORY_FORCE = define(Setting.bool(
      "hbase.lru.rs.inmemoryforcemode", false,
      "When true, in-memory blocks may grow past their share: single- and multi-access "
          + "blocks are evicted first."));

  /** Share of the single-access space that is the admission window (W-TinyLFU). */
  public static final Setting<Double> L1_WINDOW_SHARE = define(Setting.fraction(
      "tiercache.lru.window.percentage", 0.01, 0.0, 0.5,
      "Share of the L1 that admits every new block before the frequency filter decides "
          + "whether it may displace an older single-access block (the \"window\" of W-TinyLFU). "
          + "Larger windows favour recency-heavy workloads. This is the starting share: hill "
          + "climbing on the hit rate then moves it between 0 and min(0.8, single + multi share)."));

  // ---------------------------------------------------------------------------------------------
  // L2 (HBase BucketCache keys, TierCache slab settings)
  // ---------------------------------------------------------------------------------------------

  /** Where the L2 keeps blocks; HBase's syntax. */
  public static final Setting<String> L2_IOENGINE = define(Setting.text(
      "hbase.bucketcache.ioengine", "offheap",
      "offheap, file:PATH, files:PATH1,PATH2,..., mmap:PATH, pmem:PATH, or SCHEME:PATH of an "
          + "engine provider on the classpath",
      // Any scheme passes here: the engine factory knows which providers are on the classpath
      // and refuses an unknown scheme at startup, naming this key.
      v -> v.equals("offheap") || v.matches("[A-Za-z][A-Za-z0-9+.-]*:.+"),
      "Storage of the L2: direct memory, one or more files (capacity split over them in "
          + "whole slabs), a memory-mapped file, or persistent memory (needs the cache-pmem jar). "
          + "`heap` (HBase's legacy engine) is rejected, and so, at startup, is a scheme no "
          + "provider serves."));

  /** L2 capacity: HBase's megabytes, or a size with a unit. */
  public static final Setting<Long> L2_SIZE = define(Setting.megabytes(
      "hbase.bucketcache.size", null, 1L << 20, 1L << 50,
      "Capacity of the L2. A plain number is megabytes, as in HBase (`4096`); a size with a "
          + "suffix is bytes (`4g`). Required for the L2. Rounded down to whole slabs (logged at "
          + "startup)."));

  /** Slot sizes of the L2's size classes. */
  public static final Setting<int[]> L2_BUCKET_SIZES = define(Setting.custom(
      "hbase.bucketcache.bucket.sizes", "bytes", DEFAULT_BUCKET_SIZES.clone(),
      "a comma-separated, strictly increasing list of multiples of 256, each at most the slab "
          + "size and at most 16m (16777216, the longest block an L2 slot record describes)",
      CacheSettings::parseIntList, CacheSettings::validBucketSizes, CacheSettings::printIntList,
      "Slot sizes of the L2's size classes; a block goes to the smallest slot that holds its "
          + "serialized form. Blocks larger than the largest size are refused and counted in "
          + "`failedInserts`. The default has 31 sizes, each the longest slot that a given number "
          + "of slots fit in a slab of the default size (2056 KB): about HBase's sizes and five "
          + "more below 33 KB up to 58.5 KB, 64.25 KB for 64 KB data blocks (32 to a slab) and "
          + "66.25 KB, then steps of 1.09 to 1.25 up to 514 KB and 685.25 KB, so that a block "
          + "just over one size takes a slot at most 1.4 times its length and a slab leaves under "
          + "256 bytes per slot unused; set HBase's list to get its sizes exactly. A persistent "
          + "L2's checkpoint records the sizes: one written with other sizes (an earlier "
          + "TierCache's default) is not restored (a cold start with one warning)."));

  /** Writer threads draining the L2's write queues. */
  public static final Setting<Integer> L2_WRITER_THREADS = define(Setting.integer(
      "hbase.bucketcache.writer.threads", 3, 1, 64, "threads",
      "Threads that write queued blocks into the L2, each with its own queue (with "
          + "`tiercache.l2.write.mode=queued`; `inline` writes on the inserting thread)."));

  /** Capacity of each writer's queue. */
  public static final Setting<Integer> L2_WRITER_QUEUE = define(Setting.integer(
      "hbase.bucketcache.writer.queuelength", 64, 1, 1 << 20, "blocks",
      "Blocks each writer's queue holds. A queued block is already a hit."));

  /** Where the L2's index checkpoint lives (file, files and mmap engines). */
  public static final Setting<String> L2_PERSISTENT_PATH = define(Setting.text(
      "hbase.bucketcache.persistent.path", null, "a file path", v -> !v.isEmpty(),
      "Checkpoint file of the L2's index. With a persistent engine (`file:`, `files:`, "
          + "`mmap:`, `pmem:`) the L2 restores it at startup and serves hits at once, verifying "
          + "each restored block's CRC32C on its first read (a mismatch drops the block)."));

  /** How often the L2 checkpoints its index (when it changed). HBase's key and default. */
  public static final Setting<Integer> L2_PERSIST_INTERVAL_MS = define(Setting.integer(
      "hbase.bucketcache.persist.intervalinmillis", 1000, 100, Integer.MAX_VALUE, "milliseconds",
      "How often the L2 syncs its index journal (the publications and removals since the "
          + "last sync, after forcing the engine), when anything changed; also at shutdown. A "
          + "crash loses at most the blocks published since the last sync."));

  /** When the L2's index journal is compacted into a new checkpoint. */
  public static final Setting<Integer> L2_JOURNAL_COMPACT_PERCENT = define(Setting.integer(
      "tiercache.l2.journal.compact.percent", 100, 10, 100_000, "percent",
      "The L2's index journal is compacted into a new checkpoint (a snapshot, about 33 bytes "
          + "per cached block) once it has grown to this percentage of the last checkpoint's "
          + "size, so persistence writes in proportion to the churn and a restart reads at "
          + "most (1 + percent/100) checkpoints' worth."));

  /** How much the L2's hits, against its insert bytes, weigh in each size class's slabs. */
  public static final Setting<Integer> L2_REBALANCE_HIT_PERCENT = define(Setting.integer(
      "tiercache.l2.rebalance.hit.percent", 100, 0, 100, "percent",
      "Weight of the hits each size class served, against the bytes inserted into it, in the "
          + "share of slabs the class may hold when slabs move between classes (both counted "
          + "over a recent window of allocations and halved as it slides). 100: slabs follow "
          + "hits, so a class whose slabs serve more hits per slab (smaller or hotter blocks) "
          + "takes slabs from one whose slabs serve fewer; 0: slabs follow the insert byte rate "
          + "alone (every block lives about as long whatever its size: TierCache before "
          + "2026-11-28). Until the first window has counted a hit, the insert bytes decide. "
          + "Changeable at run time (`onConfigurationChange`)."));

  /** The share of each L2 size class that CLOCK shields from the insertion sweep. */
  public static final Setting<Integer> L2_PROTECTED_PERCENT = define(Setting.integer(
      "tiercache.l2.protected.percent", 80, 0, 95, "percent",
      "Share of each L2 size class's slots that may hold protected blocks: blocks read at least "
          + "twice between two visits of the class's CLOCK hand move into a protected segment "
          + "that the eviction hand passes without aging, and leave it (back to probation) only "
          + "when newer repeat readers need the room, by the segment's own CLOCK; new and "
          + "once-read blocks are evicted from the rest. 0: one plain CLOCK over the class "
          + "(TierCache before 2026-11-29). Changeable at run time (`onConfigurationChange`)."));

  /** How long I/O errors may last before the L2 disables itself. */
  public static final Setting<Integer> L2_ERRORS_TOLERATED_MS = define(Setting.integer(
      "hbase.bucketcache.ioengine.errors.tolerated.duration", 60_000, 0, Integer.MAX_VALUE,
      "milliseconds",
      "An I/O error fails only that read (a miss) or write (the block is dropped). Errors "
          + "that go on, with no success between, for longer than this disable the L2 with one "
          + "log line; the RegionServer keeps serving."));

  /** Periods in the window of HBase's "past N periods" cache metrics. */
  public static final Setting<Integer> STATS_PERIODS = define(Setting.integer(
      "hbase.blockcache.stats.periods", 12, 1, 10_000, "periods",
      "Periods in the window behind HBase's 'hit ratio past N periods' metrics of each tier "
          + "(as HBase's caches); with hbase.blockcache.stats.period.minutes above 0 and more "
          + "than one period, each tier rolls its window on a timer."));

  /** Length of one stats period. */
  public static final Setting<Integer> STATS_PERIOD_MINUTES = define(Setting.integer(
      "hbase.blockcache.stats.period.minutes", 5, 0, 525_600, "minutes",
      "Length of one period of the 'past N periods' metrics; 0 keeps the window from rolling."));

  /** Which new blocks the L2 writes: all of them, or those its frequency filter admits. */
  public static final Setting<String> L2_ADMISSION = define(Setting.text(
      "tiercache.l2.admission", "tinylfu", "tinylfu or all",
      v -> v.equals("tinylfu") || v.equals("all"),
      "Admission in front of the L2's writes. `tinylfu`: a frequency sketch (4-bit count-min "
          + "with a doorkeeper, aged every 20 × its width sightings) fed by every L2 lookup and "
          + "insert; a data block is written when its size class has free space, or when its "
          + "estimated frequency beats that of the block CLOCK would evict for it; otherwise it "
          + "is rejected before any copy (counted in `admissionRejected`). Index and bloom "
          + "blocks, in-memory blocks and `waitWhenCache` inserts (prefetch, cache-on-write) are "
          + "always admitted. `all`: every block is written (no sketch is fed). Changeable at "
          + "run time (`onConfigurationChange`)."));

  /** Which thread writes an admitted block into the L2: the inserting one, or a writer. */
  public static final Setting<String> L2_WRITE_MODE = define(Setting.text(
      "tiercache.l2.write.mode", "inline", "inline or queued",
      v -> v.equals("inline") || v.equals("queued"),
      "Who writes an admitted block into the L2. `inline` (the default): the thread that "
          + "called `cacheBlock` (the RPC handler that read the block) allocates a slot, evicting "
          + "by CLOCK if it must, copies the block in and publishes it before `cacheBlock` "
          + "returns; no hand-off, no writer wake-up, no queue to overflow. `queued`: HBase's "
          + "write-behind; the block is queued for one of `hbase.bucketcache.writer.threads` "
          + "writers (queues of `hbase.bucketcache.writer.queuelength`), is a hit while queued, "
          + "and when its queue is full is written by the caller into free space only, or "
          + "dropped (counted in `failedInserts` and the `l2_fullQueueDrops` metric). Either "
          + "way a block being written is already a hit. Changeable at run time "
          + "(`onConfigurationChange`)."));

  /** Seconds between the periodic INFO stats lines (one per tier). */
  public static final Setting<Integer> STATS_LOG_INTERVAL = define(Setting.integer(
      "tiercache.metrics.log.interval", 300, 0, 86_400, "seconds",
      "Seconds between the INFO stats lines of the combined cache, one per tier, with counters "
          + "since the previous line (as HBase's caches log every 5 minutes); 0 logs none."));

  /** Tables with their own per-table metrics. */
  public static final Setting<Integer> METRICS_TABLES_MAX = define(Setting.integer(
      "tiercache.metrics.tables.max", 100, 0, 10_000, "tables",
      "Tables that get their own table_ metrics (cached bytes, hits, requests, hit ratio); "
          + "lookups of further tables count under the table `_other`."));

  /** Size of one slab. */
  public static final Setting<Long> L2_SLAB_SIZE = define(Setting.custom(
      "tiercache.bucket.slab.size", "bytes", (long) DEFAULT_SLAB_SIZE,
      "a multiple of 4k (4096) from 1m to 1g, at least the largest bucket size",
      Sizes::parseBytes, v -> v >= 1L << 20 && v <= 1L << 30 && v % SLAB_PAGE == 0,
      Sizes::format,
      "Size of one slab. Each slab serves one size class at a time; blocks never straddle "
          + "slabs; cold slabs move to size classes that need room. The default, 2056 KB, is 32 "
          + "slots of 64.25 KB: a 64 KB data block with its header, checksums and up to about "
          + "190 bytes of its last cell over 64 KB takes one of them, where a 2 MB slab holds "
          + "31. A size class takes whole slabs (one with few blocks may live in free slots of "
          + "a larger class instead): smaller slabs strand less memory in a small L2 of many "
          + "block sizes."));

  /** Back end of the {@code pmem:} engine (cache-pmem). */
  public static final Setting<String> PMEM_BACKEND = define(Setting.text(
      "tiercache.pmem.backend", "dax", "dax or llpl", v -> v.equals("dax") || v.equals("llpl"),
      "Back end of the `pmem:PATH` engine (cache-pmem): `dax` maps the pool file from Java "
          + "(fsdax or CXL memory exposed as a DAX file; with `MAP_SYNC` where the filesystem "
          + "supports it, flushes are cache-line write-backs; no native code);"));

  // ---------------------------------------------------------------------------------------------
  // The combined L1+L2 cache and the RegionServer hook
  // ---------------------------------------------------------------------------------------------

  /** How the combined cache shares blocks between its L1 and L2. */
  public static final Setting<String> COMBINED_MODE = define(Setting.text(
      "tiercache.combined.mode", "hot", "one of hbase, hot, exclusive, inclusive",
      v -> v.equals("hbase") || v.equals("hot") || v.equals("exclusive")
          || v.equals("inclusive"),
      "`hbase`: index and bloom blocks in the L1, data blocks in the L2, with HBase's "
          + "`CombinedBlockCache` hit accounting. `hot` (the default): `hbase`'s placement and "
          + "accounting, and "
          + "L2 hits on data blocks that pass the promotion rule are also copied into the L1 "
          + "(they stay in the L2); index and bloom blocks the L1 evicts move to the L2 instead "
          + "of being lost. `exclusive`: every block enters the L1; L1 "
          + "victims move to the L2; L2 hits that pass the promotion rule move back (one copy of "
          + "each block)."));

  /** Hot mode: what becomes of a promoted data block's L2 copy. */
  public static final Setting<String> COMBINED_HOT_PROMOTION = define(Setting.text(
      "tiercache.combined.hot.promotion", "move", "copy, move or move-on-hit",
      v -> v.equals("copy") || v.equals("move") || v.equals("move-on-hit"),
      "Hot mode only. `move` (the default), `move-on-hit` or `copy`. `move`: a promoted data "
          + "block's L2 copy is freed as soon as the L1 holds it, so the L1's share adds "
          + "capacity and no block is held twice; a data block the L1 evicts goes back to the "
          + "L2 through the L2's admission filter (`tiercache.l2.admission`), or is dropped. "
          + "`move-on-hit`: the same, but the L2 copy is freed only at the L1 copy's first hit, "
          + "so a copy the L1 evicts unread costs no L2 write (fewer writes, for wear on the "
          + "file, mmap and pmem engines), while copies not yet hit are held twice. `copy`: a "
          + "promoted data block stays in the L2 and the L1 holds a copy; the L1 drops its data "
          + "victims (they are still in the L2). Read at start-up."));

  /** L2 hits a data block needs (recently) before hot/exclusive/inclusive mode promotes it. */
  public static final Setting<Integer> COMBINED_PROMOTE_HITS = define(Setting.integer(
      "tiercache.combined.promote.min.hits", 2, 1, 15, "hits",
      "Hot, exclusive and inclusive mode: an L2 hit on a data block promotes it to the L1 once "
          + "its recent L2 hit count (count-min sketch, halved periodically) reaches this. Index "
          + "and bloom blocks are always promoted; `1` promotes every hit. Hot mode raises the bar "
          + "above this by one per 512 copies that earned less than one L1 hit each or that the "
          + "L1 mostly threw away, and lowers it back once they earn more than two."));

  /** The block cache TieredRegionServer installs. */
  public static final Setting<String> BLOCKCACHE_CLASS = define(Setting.text(
      "hbase.blockcache.class", "io.tiercache.combined.TieredBlockCache",
      "the fully qualified name of a BlockCache with a public (Configuration) constructor that "
          + "is a ResizableBlockCache or a CombinedBlockCache",
      v -> !v.isEmpty(),
      "Read by `io.tiercache.combined.TieredRegionServer` (set as "
          + "`hbase.regionserver.impl`): the block cache it builds and installs before any region "
          + "opens."));

  // ---------------------------------------------------------------------------------------------
  // HBase 2.6 block-cache keys TierCache does not read (reported when set; see ConfigReport).
  // The list is every hbase.lru.* and hbase.bucketcache.* key of HBase 2.6.4's LruBlockCache,
  // LruAdaptiveBlockCache, BucketCache, BlockCacheFactory and CacheConfig that is not read above,
  // and hfile.block.cache.policy.
  // ---------------------------------------------------------------------------------------------

  static {
    ignore("HBase evicts in batches on a background thread, from the acceptable factor down to "
            + "the min factor. TierCache's L1 evicts on insert, exactly down to its maximum, so "
            + "there is no batch to size.",
        "hbase.lru.blockcache.min.factor", "hbase.lru.blockcache.acceptable.factor");
    ignore("Guards HBase's cache against inserts outrunning its eviction thread; eviction here "
            + "is synchronous and the size never passes the maximum.",
        "hbase.lru.blockcache.hard.capacity.limit.factor");
    ignore("Chooses among HBase's own L1 implementations; TierCache's L1 is chosen by class name "
            + "(hbase.blockcache.class).",
        "hfile.block.cache.policy");
    ignore("Tune HBase's LruAdaptiveBlockCache, which stops caching some data blocks while "
            + "eviction is heavy. TierCache's L1 always admits into its window and lets its "
            + "frequency filter decide what an old block gives way to (W-TinyLFU).",
        "hbase.lru.cache.heavy.eviction.count.limit",
        "hbase.lru.cache.heavy.eviction.mb.size.limit",
        "hbase.lru.cache.heavy.eviction.overhead.coefficient");
    ignore("Tune HBase's batch freeSpace() scan. The L2 evicts incrementally per size class "
            + "(CLOCK) as writes need room.",
        "hbase.bucketcache.acceptfactor", "hbase.bucketcache.minfactor",
        "hbase.bucketcache.extrafreefactor");
    ignore("Shares of single-access, multi-access and in-memory blocks that HBase's batch "
            + "freeSpace() keeps in its BucketCache. The L2 keeps no priority shares: CLOCK "
            + "gives a block read again a second chance, and the L1 keeps HBase's priorities.",
        "hbase.bucketcache.single.factor", "hbase.bucketcache.multi.factor",
        "hbase.bucketcache.memory.factor");
    ignore("How long HBase waits for queue space before dropping a block. The L2 does not wait: "
            + "on a full queue the caller writes into free space, and drops only when none is "
            + "left (eviction is the writers' work); waitWhenCache callers always write.",
        "hbase.bucketcache.queue.addition.waittime");
    ignore("Combined mode is the only mode since HBase 2.0.",
        "hbase.bucketcache.combinedcache.enabled");
    ignore("No longer read by HBase 2 either. The L1 is sized by hfile.block.cache.size or "
            + "hfile.block.cache.memory.size, the L2 by hbase.bucketcache.size.",
        "hbase.bucketcache.percentage.in.combinedcache");
    ignore("Chunk size of HBase's protobuf persistence file. The L2 writes its own checkpoint "
            + "(hbase.bucketcache.persistent.path), sequentially, about 35 bytes per block.",
        "hbase.bucketcache.persistence.chunksize");
    ignore("Digest HBase computes over its cache file to trust a restore. The L2 instead checks "
            + "each restored block's CRC32C on its first read, and never trusts a checkpoint "
            + "written for other geometry.",
        "hbase.bucketcache.persistent.file.integrity.check.algorithm");
    ignore("Age after which HBase evicts blocks of files no online region serves. The L2 has no "
            + "such sweep: a file's blocks go when HBase evicts the file, and blocks never read "
            + "again fall out under CLOCK.",
        "hbase.bucketcache.block.orphan.evictgraceperiod.seconds");
  }

  private static void ignore(String reason, String... keys) {
    for (String key : keys) {
      IGNORED.add(new IgnoredKey(key, reason));
    }
  }

  private static int[] parseIntList(String text) {
    String[] parts = text.split(",");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      out[i] = Integer.parseInt(parts[i].trim());
    }
    return out;
  }

  /** The largest bucket size: 16 MB, the longest block an L2 slot record's 24 bits describe. */
  public static final int MAX_BUCKET_SIZE = 1 << 24;

  private static boolean validBucketSizes(int[] sizes) {
    if (sizes.length == 0 || sizes.length > 255) {
      return false;
    }
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] <= 0 || sizes[i] % 256 != 0 || sizes[i] > MAX_BUCKET_SIZE
          || (i > 0 && sizes[i] <= sizes[i - 1])) {
        return false;
      }
    }
    return true;
  }

  private static String printIntList(int[] sizes) {
    StringJoiner j = new StringJoiner(",");
    for (int s : sizes) {
      j.add(Integer.toString(s));
    }
    return j.toString();
  }

  /** Returns every key, in definition order. */
  public static List<Setting<?>> all() {
    return Collections.unmodifiableList(ALL);
  }

  /** Returns every HBase key TierCache accepts and does not read, in declaration order. */
  public static List<IgnoredKey> ignored() {
    return Collections.unmodifiableList(IGNORED);
  }

  /** Returns the ignored key named {@code key}; null if TierCache reads it or does not know it. */
  public static IgnoredKey ignoredKey(String key) {
    for (IgnoredKey k : IGNORED) {
      if (k.key().equals(key)) {
        return k;
      }
    }
    return null;
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

  /**
   * The settings whose effective value differs between {@code before} and {@code after}, each as
   * {@code key: old -> new} (an unparsable value shows as written). For a tier's
   * {@code onConfigurationChange}: it validates the new values itself first.
   */
  public static List<String> changes(Configuration before, Configuration after,
      List<Setting<?>> settings) {
    List<String> out = new ArrayList<>();
    for (Setting<?> s : settings) {
      String was = shown(before, s);
      String now = shown(after, s);
      if (!was.equals(now)) {
        out.add(s.key() + ": " + was + " -> " + now);
      }
    }
    return out;
  }

  private static <T> String shown(Configuration conf, Setting<T> s) {
    try {
      return s.format(s.get(conf));
    } catch (SettingException e) {
      return "'" + conf.getTrimmed(s.key()) + "'";
    }
  }

  private static <T> String describeOne(Configuration conf, Setting<T> s) {
    return s.key() + "=" + s.format(s.get(conf)) + (s.isSet(conf) ? "" : " (default)");
  }
}
