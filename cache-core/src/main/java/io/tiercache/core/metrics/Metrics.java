/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import io.tiercache.core.metrics.Metric.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Every metric TierCache publishes, defined once (as {@link io.tiercache.core.config.CacheSettings}
 * defines every key). {@code docs/metrics.md} has one row per metric with the same name, kind,
 * unit and meaning; {@code MetricsDocsTest} fails when they differ, and a source's snapshot may
 * only emit names defined here ({@link MetricsOut} refuses others).
 *
 * <p>Names follow HBase's metrics2 style (camelCase, {@code _} between parts) so they sit beside
 * HBase's own in the RegionServer's JMX ({@code Hadoop:service=HBase,name=RegionServer,
 * sub=TierCache}).
 */
public final class Metrics {
  private static final List<Metric> ALL = new ArrayList<>();

  private Metrics() {}

  private static Metric define(String template, Kind kind, String unit, String description) {
    Metric m = new Metric(template, kind, unit, description);
    ALL.add(m);
    return m;
  }

  // ----- every tier (l1, l2) ------------------------------------------------------------------

  public static final Metric HITS = define("{tier}_hitCount", Kind.COUNTER, "lookups",
      "Lookups this tier answered with a block.");
  public static final Metric MISSES = define("{tier}_missCount", Kind.COUNTER, "lookups",
      "Lookups this tier did not answer.");
  public static final Metric REQUESTS = define("{tier}_requestCount", Kind.COUNTER, "lookups",
      "Lookups asked of this tier (hits plus misses).");
  public static final Metric HIT_RATIO = define("{tier}_hitRatio", Kind.GAUGE, "ratio 0-1",
      "Hits over requests since start (0 before the first request).");
  public static final Metric EVICTED = define("{tier}_evictedCount", Kind.COUNTER, "blocks",
      "Blocks evicted to make room (not counting blocks of closed or compacted files).");
  public static final Metric FAILED_INSERTS = define("{tier}_failedInsertCount", Kind.COUNTER,
      "blocks", "Blocks refused outright (too large, no room, tier disabled or restoring).");
  public static final Metric ADMITTED = define("{tier}_admittedCount", Kind.COUNTER, "blocks",
      "New blocks the admission filter let in (or admitted without a filter).");
  public static final Metric ADMISSION_REJECTED = define("{tier}_admissionRejectedCount",
      Kind.COUNTER, "blocks",
      "New blocks the admission filter kept out: the block they would displace is used more.");
  public static final Metric HANDED_OFF = define("{tier}_handedOffCount", Kind.COUNTER, "blocks",
      "Evicted blocks handed to the next tier instead of being dropped.");
  public static final Metric BYTES_WRITTEN = define("{tier}_bytesWritten", Kind.COUNTER, "bytes",
      "Bytes written to the tier's storage (blocks and their headers): device wear on file "
          + "and pmem engines.");
  public static final Metric SIZE = define("{tier}_size", Kind.GAUGE, "bytes",
      "Bytes of cached blocks.");
  public static final Metric DATA_SIZE = define("{tier}_dataSize", Kind.GAUGE, "bytes",
      "Bytes of cached data blocks.");
  public static final Metric MAX_SIZE = define("{tier}_maxSize", Kind.GAUGE, "bytes",
      "Configured capacity.");
  public static final Metric FREE_SIZE = define("{tier}_freeSize", Kind.GAUGE, "bytes",
      "Capacity not in use (on the L2: not in used slots).");
  public static final Metric BLOCKS = define("{tier}_blockCount", Kind.GAUGE, "blocks",
      "Cached blocks.");
  public static final Metric DATA_BLOCKS = define("{tier}_dataBlockCount", Kind.GAUGE, "blocks",
      "Cached data blocks.");
  public static final Metric HEAP_SIZE = define("{tier}_heapSize", Kind.GAUGE, "bytes",
      "The tier's footprint on the Java heap (the L2's: its index, admission sketch and write "
          + "queue).");
  public static final Metric UNEXPECTED = define("{tier}_unexpectedFailures", Kind.COUNTER,
      "failures", "Failures other than I/O errors caught at the tier's boundary; each dropped "
          + "a block or answered a miss. Any is a bug to report.");

  // ----- the L2 --------------------------------------------------------------------------------

  public static final Metric SLABS = define("l2_slabs", Kind.GAUGE, "slabs",
      "Slabs of the L2's memory or file.");
  public static final Metric FREE_SLABS = define("l2_freeSlabs", Kind.GAUGE, "slabs",
      "Slabs no size class holds.");
  public static final Metric ADMISSION_LENIENCY = define("l2_admissionLeniency", Kind.GAUGE,
      "ratio 0-1", "Share of new data blocks on their first read (none within as many lookups "
          + "as the L2 holds blocks) that lose their admission duel and are written all the "
          + "same, as the filter learned it (1/64 to 63/64; 1 with admission all).");
  public static final Metric ADMISSION_LENIENCY_REREAD = define("l2_admissionLeniencyReread",
      Kind.GAUGE, "ratio 0-1", "As l2_admissionLeniency, for new data blocks read again within "
          + "as many lookups as the L2 holds blocks (1/64 to 63/64; 1 with admission all).");
  public static final Metric ADMISSION_MARGIN = define("l2_admissionMargin", Kind.GAUGE,
      "sketch counts", "How much a new data block's estimated frequency must exceed that of the "
          + "block it would displace to win its admission duel, as the filter learned it (0, "
          + "Caffeine's rule, to 5; 0 with admission all).");
  public static final Metric UTILISATION = define("l2_utilisation", Kind.GAUGE, "ratio 0-1",
      "Share of all slab memory that is in used slots.");
  public static final Metric WASTE = define("l2_wasteBytes", Kind.GAUGE, "bytes",
      "Memory of slabs that size classes hold but that holds no block bytes: free slots and "
          + "slot rounding (a 20 KB block in a 33 KB slot wastes 13 KB).");
  public static final Metric CLASS_SLABS = define("l2_class_{size}_slabs", Kind.GAUGE, "slabs",
      "Slabs held by the size class whose slots are {size} bytes.");
  public static final Metric CLASS_USED = define("l2_class_{size}_usedSlots", Kind.GAUGE,
      "slots", "Used slots of the size class.");
  public static final Metric CLASS_FREE = define("l2_class_{size}_freeSlots", Kind.GAUGE,
      "slots", "Free slots in the slabs the size class holds (its share of the waste).");
  public static final Metric CLASS_PROTECTED = define("l2_class_{size}_protectedSlots",
      Kind.GAUGE, "slots", "Blocks of the size class in its CLOCK's protected segment (read "
          + "twice between two turns of the hand; at most `tiercache.l2.protected.percent` of "
          + "the class's slots).");
  public static final Metric QUEUE_DEPTH = define("l2_writeQueueDepth", Kind.GAUGE, "blocks",
      "Blocks waiting in the writers' queues (each is already a hit); 0 in the default "
          + "write mode, `inline`, which queues nothing.");
  public static final Metric QUEUE_DROPS = define("l2_fullQueueDrops", Kind.COUNTER, "blocks",
      "Blocks dropped because their writer's queue was full and no free slot was left "
          + "(`queued` write mode only).");
  public static final Metric CHECKSUM_FAILURES = define("l2_checksumFailures", Kind.COUNTER,
      "blocks", "Blocks dropped because their checksum did not match (never served).");
  public static final Metric IO_ERRORS = define("l2_ioErrors", Kind.COUNTER, "errors",
      "I/O errors of the engine (each a miss or a dropped block).");
  public static final Metric ENGINE_READS = define("l2_engineReadCount", Kind.COUNTER, "reads",
      "Reads of a `file:` or `files:` engine's storage, timed (a hit's block, or prefetch's "
          + "size check of a cached block); 0 on memory engines, which time nothing.");
  public static final Metric ENGINE_READ_TIME = define("l2_engineReadTime", Kind.COUNTER,
      "microseconds", "Time the engine reads of l2_engineReadCount took, in all.");
  public static final Metric ENGINE_TIME_PER_READ = define("l2_engineTimePerRead", Kind.GAUGE,
      "microseconds", "Mean time of an engine read since start, BucketCache's \"time per hit\" "
          + "(0 before the first read; -1 on memory engines, whose hits are not timed).");
  public static final Metric DISABLED = define("l2_disabled", Kind.GAUGE, "0 or 1",
      "1 once lasting I/O errors or an Error disabled the L2 (the RegionServer keeps serving "
          + "without it).");
  public static final Metric COLD_FILE_EVICTIONS = define("l2_coldFileEvictions", Kind.COUNTER,
      "blocks", "Blocks evicted first because data tiering called their file cold.");
  public static final Metric CHECKPOINT_AGE = define("l2_checkpointAge", Kind.GAUGE,
      "milliseconds", "Time since the last checkpoint written (-1: none yet, or no "
          + "checkpoints configured).");
  public static final Metric CHECKPOINT_DURATION = define("l2_checkpointDuration", Kind.GAUGE,
      "milliseconds", "How long the last checkpoint took to write (-1: none yet).");
  public static final Metric CHECKPOINT_BYTES = define("l2_checkpointBytes", Kind.GAUGE, "bytes",
      "Size of the last checkpoint file written (-1: none yet).");
  public static final Metric CHECKPOINT_FAILURES = define("l2_checkpointFailuresInARow",
      Kind.GAUGE, "attempts", "Checkpoint attempts that failed since the last one that worked.");
  public static final Metric PERSIST_BYTES = define("l2_persistBytesWritten", Kind.COUNTER,
      "bytes", "Bytes written to the checkpoint file since the start (index persistence's disk "
          + "cost; 0 for pmem:, whose index is in the pool).");
  public static final Metric CHECKPOINTS = define("l2_checkpoints", Kind.COUNTER, "checkpoints",
      "Checkpoints written since the start.");
  public static final Metric EVICTION_WORK = define("l2_evictionSlotsExamined", Kind.COUNTER,
      "slots", "Slots CLOCK examined to choose eviction victims (divided by l2_evictedCount: "
          + "the eviction work per insert of a full L2).");
  public static final Metric RESTORING = define("l2_restoring", Kind.GAUGE, "0 or 1",
      "1 while the index is restored at start; l2_blockCount then counts the blocks restored "
          + "so far.");
  public static final Metric RESTORE_DURATION = define("l2_restoreDuration", Kind.GAUGE,
      "milliseconds", "How long the restore at start took (-1 while it runs).");
  public static final Metric RESTORE_DROPS = define("l2_insertsDroppedWhileRestoring",
      Kind.COUNTER, "blocks", "Inserts dropped because they came while the index was restored.");

  // ----- per table -----------------------------------------------------------------------------

  public static final Metric TABLE_BYTES = define("table_{table}_cachedBytes", Kind.GAUGE,
      "bytes", "Bytes of the table's blocks in the L1 and L2 (for a table named "
          + "`namespace:qualifier`, {table} is `namespace_qualifier`).");
  public static final Metric TABLE_HITS = define("table_{table}_hitCount", Kind.COUNTER,
      "lookups", "Lookups of the table's blocks the cache answered.");
  public static final Metric TABLE_REQUESTS = define("table_{table}_requestCount", Kind.COUNTER,
      "lookups", "Lookups of the table's blocks.");
  public static final Metric TABLE_HIT_RATIO = define("table_{table}_hitRatio", Kind.GAUGE,
      "ratio 0-1", "The table's hits over its requests since it was first seen.");
  public static final Metric TABLES = define("tablesTracked", Kind.GAUGE, "tables",
      "Tables with their own table_ metrics; lookups of further tables count under the table "
          + "`_other` (the limit is tiercache.metrics.tables.max).");

  /** Every metric, in definition order (the order of docs/metrics.md). */
  public static List<Metric> all() {
    return Collections.unmodifiableList(ALL);
  }

  /** The metric whose template {@code name} is an instance of, or null. */
  public static Metric of(String name) {
    for (Metric m : ALL) {
      if (m.matches(name)) {
        return m;
      }
    }
    return null;
  }
}
