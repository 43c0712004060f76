/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static io.tiercache.core.config.CacheSettings.L2_BUCKET_SIZES;
import static io.tiercache.core.config.CacheSettings.L2_ERRORS_TOLERATED_MS;
import static io.tiercache.core.config.CacheSettings.L2_IOENGINE;
import static io.tiercache.core.config.CacheSettings.L2_PERSISTENT_PATH;
import static io.tiercache.core.config.CacheSettings.L2_PERSIST_INTERVAL_MS;
import static io.tiercache.core.config.CacheSettings.L2_SIZE;
import static io.tiercache.core.config.CacheSettings.L2_SLAB_SIZE;
import static io.tiercache.core.config.CacheSettings.L2_WRITER_QUEUE;
import static io.tiercache.core.config.CacheSettings.L2_WRITER_THREADS;
import static io.tiercache.core.config.CacheSettings.PMEM_BACKEND;

import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.Setting;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.config.Sizes;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The validated settings of one {@link BucketTier}, from HBase's {@code hbase.bucketcache.*}
 * keys or {@link BucketTier#builder()}. Cross-checks (bucket sizes fit a slab, capacity holds at
 * least one slab) fail with errors that name the keys.
 */
public final class BucketConfig {
  static final List<Setting<?>> SETTINGS = Arrays.asList(L2_IOENGINE, L2_SIZE, L2_BUCKET_SIZES,
      L2_WRITER_THREADS, L2_WRITER_QUEUE, L2_PERSISTENT_PATH, L2_PERSIST_INTERVAL_MS,
      L2_ERRORS_TOLERATED_MS, L2_SLAB_SIZE, PMEM_BACKEND, CacheSettings.STATS_PERIODS,
      CacheSettings.STATS_PERIOD_MINUTES, CacheSettings.L2_ADMISSION,
      CacheSettings.L2_WRITE_MODE, CacheSettings.BLOCK_SIZE_HINT,
      CacheSettings.L2_REBALANCE_HIT_PERCENT, CacheSettings.L2_PROTECTED_PERCENT);

  /** The settings an L2 can change at run time ({@code onConfigurationChange}). */
  static final List<Setting<?>> RUNTIME = Arrays.asList(L2_PERSIST_INTERVAL_MS,
      L2_ERRORS_TOLERATED_MS, CacheSettings.L2_ADMISSION, CacheSettings.L2_WRITE_MODE,
      CacheSettings.L2_REBALANCE_HIT_PERCENT, CacheSettings.L2_PROTECTED_PERCENT);

  /** The settings an L2 reads at start-up only: its engine, geometry and threads. */
  static final List<Setting<?>> START_ONLY = Arrays.asList(L2_IOENGINE, L2_SIZE,
      L2_BUCKET_SIZES, L2_WRITER_THREADS, L2_WRITER_QUEUE, L2_PERSISTENT_PATH, L2_SLAB_SIZE,
      PMEM_BACKEND, CacheSettings.STATS_PERIODS, CacheSettings.STATS_PERIOD_MINUTES,
      CacheSettings.BLOCK_SIZE_HINT);

  final String ioEngine;
  /** {@code hbase.bucketcache.size}. */
  final long requestedCapacity;
  /** Bytes of slabs: the size rounded down to whole slabs, less the slot records for offheap. */
  final long capacity;
  final SizeClasses classes;
  final int slabSize;
  final int writerThreads;
  final int writerQueue;
  final String persistentPath;
  final int errorsToleratedMs;
  final int persistIntervalMs;
  /**
   * HBase's stats window ({@code hbase.blockcache.stats.*}); read from a Configuration only: a
   * tier built in code rolls no window (no timer thread).
   */
  int statsPeriods = 1;
  int statsPeriodMinutes;
  /** {@code tiercache.l2.admission}: {@code tinylfu} or {@code all} (validated when set). */
  String admission = CacheSettings.L2_ADMISSION.defaultValue();
  /** {@code tiercache.l2.write.mode}: {@code inline} or {@code queued} (validated when set). */
  String writeMode = CacheSettings.L2_WRITE_MODE.defaultValue();
  /** {@code tiercache.l2.rebalance.hit.percent} (validated when set). */
  int rebalanceHitPercent = CacheSettings.L2_REBALANCE_HIT_PERCENT.defaultValue();
  /** {@code tiercache.l2.protected.percent} (validated when set). */
  int protectedPercent = CacheSettings.L2_PROTECTED_PERCENT.defaultValue();
  /** {@code tiercache.l2.journal.compact.percent} (validated when set). */
  int journalCompactPercent = CacheSettings.L2_JOURNAL_COMPACT_PERCENT.defaultValue();
  /** {@code hbase.blockcache.minblocksize}: sizes the admission sketch (capacity / hint). */
  long blockSizeHint = CacheSettings.BLOCK_SIZE_HINT.defaultValue();
  /** Engine keys passed to a provided engine as text ({@code EngineProvider#open}). */
  final Map<String, String> engineOptions;

  BucketConfig(String ioEngine, long requestedCapacity, int[] bucketSizes, long slabSize,
      int writerThreads, int writerQueue, String persistentPath, int persistIntervalMs,
      int errorsToleratedMs, String pmemBackend) {
    this.engineOptions = Collections.singletonMap(PMEM_BACKEND.key(),
        PMEM_BACKEND.check(pmemBackend));
    this.ioEngine = L2_IOENGINE.check(ioEngine);
    this.slabSize = (int) (long) L2_SLAB_SIZE.check(slabSize);
    L2_BUCKET_SIZES.check(bucketSizes);
    try {
      this.classes = new SizeClasses(bucketSizes, this.slabSize);
    } catch (IllegalArgumentException e) {
      throw new SettingException(L2_BUCKET_SIZES.key(), e.getMessage() + " ("
          + L2_SLAB_SIZE.key() + " is " + Sizes.format(slabSize) + ")");
    }
    L2_SIZE.check(requestedCapacity);
    this.requestedCapacity = requestedCapacity;
    // offheap: the size is the L2's whole direct memory, its slot records included.
    this.capacity = isOffHeap(this.ioEngine)
        ? DirectBudget.offHeapCapacity(requestedCapacity, this.slabSize, classes)
        : requestedCapacity / slabSize * slabSize;
    if (capacity == 0) {
      throw new SettingException(L2_SIZE.key(), "'" + Sizes.format(requestedCapacity)
          + "' is smaller than one slab" + (isOffHeap(this.ioEngine) ? " and its slot records" : "")
          + "; expected at least " + Sizes.format(slabSize + (isOffHeap(this.ioEngine)
              ? DirectBudget.metadataBytes(slabSize, this.slabSize, classes) : 0))
          + " (" + L2_SLAB_SIZE.key() + " is " + Sizes.format(slabSize) + ")");
    }
    this.writerThreads = L2_WRITER_THREADS.check(writerThreads);
    this.writerQueue = L2_WRITER_QUEUE.check(writerQueue);
    this.persistentPath = persistentPath;
    this.persistIntervalMs = L2_PERSIST_INTERVAL_MS.check(persistIntervalMs);
    if (persistentPath != null && ioEngine.equals("offheap")) {
      throw new SettingException(L2_PERSISTENT_PATH.key(), "is set, but " + L2_IOENGINE.key()
          + "=offheap does not survive a restart; expected a persistent engine (file:, files:, "
          + "mmap:, pmem:) or no " + L2_PERSISTENT_PATH.key());
    }
    this.errorsToleratedMs = L2_ERRORS_TOLERATED_MS.check(errorsToleratedMs);
  }

  /**
   * Reads an L2's settings from {@code conf}.
   *
   * @throws SettingException naming the key of the first invalid value
   */
  public static BucketConfig from(Configuration conf) {
    Long size = L2_SIZE.get(conf);
    if (size == null) {
      throw new SettingException(L2_SIZE.key(), "the L2 needs a capacity; expected "
          + L2_SIZE.range());
    }
    BucketConfig config = new BucketConfig(L2_IOENGINE.get(conf), size,
        L2_BUCKET_SIZES.get(conf), L2_SLAB_SIZE.get(conf), L2_WRITER_THREADS.get(conf),
        L2_WRITER_QUEUE.get(conf), L2_PERSISTENT_PATH.get(conf),
        L2_PERSIST_INTERVAL_MS.get(conf), L2_ERRORS_TOLERATED_MS.get(conf),
        PMEM_BACKEND.get(conf));
    config.statsPeriods = CacheSettings.STATS_PERIODS.get(conf);
    config.statsPeriodMinutes = CacheSettings.STATS_PERIOD_MINUTES.get(conf);
    config.admission = CacheSettings.L2_ADMISSION.get(conf);
    config.writeMode = CacheSettings.L2_WRITE_MODE.get(conf);
    config.rebalanceHitPercent = CacheSettings.L2_REBALANCE_HIT_PERCENT.get(conf);
    config.protectedPercent = CacheSettings.L2_PROTECTED_PERCENT.get(conf);
    config.journalCompactPercent = CacheSettings.L2_JOURNAL_COMPACT_PERCENT.get(conf);
    config.blockSizeHint = CacheSettings.BLOCK_SIZE_HINT.get(conf);
    return config;
  }

  static boolean isOffHeap(String ioEngine) {
    return ioEngine.trim().equalsIgnoreCase("offheap");
  }

  /** Direct memory of this L2's slot records. */
  long metadataBytes() {
    return DirectBudget.metadataBytes(capacity, slabSize, classes);
  }

  /** Direct memory this L2 takes in all: slot records, and the slabs if offheap. */
  long directBytes() {
    return metadataBytes() + (isOffHeap(ioEngine) ? capacity : 0);
  }

  /** Blocks the L2 holds when full of blocks of the hinted size: sizes the admission sketch. */
  long expectedBlocks() {
    return Math.max(1, capacity / blockSizeHint);
  }

  /** The slot sizes of the size classes, in class order. */
  int[] slotSizes() {
    int[] sizes = new int[classes.count()];
    for (int c = 0; c < sizes.length; c++) {
      sizes[c] = classes.size(c);
    }
    return sizes;
  }

  @Override
  public String toString() {
    return "ioengine=" + ioEngine + ", capacity=" + Sizes.format(capacity) + " (of "
        + Sizes.format(requestedCapacity) + "; slot records "
        + Sizes.format(metadataBytes()) + " of direct memory), slab="
        + Sizes.format(slabSize) + ", classes=" + classes + ", writes=" + writeMode + " (writers "
        + writerThreads + "x" + writerQueue + "), admission=" + admission + ", persistentPath="
        + persistentPath
        + (ioEngine.startsWith("pmem:") ? ", " + engineOptions : "");
  }
}
