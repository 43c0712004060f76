/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.core.file.HFiles;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.hadoop.hbase.regionserver.DataTieringManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data tiering's eviction rule, as HBase's BucketCache applies it when it frees space
 * (HBASE-28469): blocks of files that HBase's {@link DataTieringManager} calls cold go first.
 * TierCache evicts incrementally, so instead of one scan per batch, a writer that needs room
 * (its size class has no free slot and no free slab is left) first evicts every cached block of
 * the cold files, at most once per {@link #INTERVAL_NANOS} (listing the cold files walks every
 * online store file, which is not for every insert). Without data tiering
 * ({@code DataTieringManager.getInstance()} null) nothing happens.
 *
 * <p>Thread safe: one writer wins the due sweep by a CAS; evictions take the usual key locks.
 */
final class ColdFiles {
  private static final Logger LOG = LoggerFactory.getLogger(ColdFiles.class);
  /** Least time between two sweeps. */
  static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  /** How long a writer that found room lets the next one go without asking the allocator. */
  static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final String tier;
  private final SlabAllocator slabs;
  private final HFiles<?> files;
  private final ToIntFunction<String> evictFile;
  private volatile Supplier<Set<String>> source = ColdFiles::fromDataTiering;
  private final AtomicLong nextSweep = new AtomicLong(System.nanoTime());
  private final LongAdder evicted = new LongAdder();

  ColdFiles(String tier, SlabAllocator slabs, HFiles<?> files,
      ToIntFunction<String> evictFile) {
    this.tier = tier;
    this.slabs = slabs;
    this.files = files;
    this.evictFile = evictFile;
  }

  /** HBase's cold store files (names), or null without data tiering. */
  static Set<String> fromDataTiering() {
    DataTieringManager tiering = DataTieringManager.getInstance();
    return tiering == null ? null : tiering.getColdFilesList().keySet();
  }

  /**
   * Where the cold files come from: HBase's DataTieringManager unless set otherwise. A new source
   * is asked at the next write that needs room.
   */
  void source(Supplier<Set<String>> coldFiles) {
    this.source = coldFiles;
    nextSweep.set(System.nanoTime());
  }

  /**
   * Sweeps the cold files' blocks if a sweep is due and class {@code sizeClass} has no room
   * without evicting. Costs a volatile read when no sweep is due (every write asks), and the
   * allocator is asked at most about once a second while there is room.
   */
  void maybeSweep(int sizeClass) {
    long now = System.nanoTime();
    long due = nextSweep.get();
    if (now - due < 0) {
      return;
    }
    if (slabs.hasFreeSpace(sizeClass)) {
      nextSweep.compareAndSet(due, now + RECHECK_NANOS); // room yet: ask again in a while
      return;
    }
    if (!nextSweep.compareAndSet(due, now + INTERVAL_NANOS)) {
      return;
    }
    Set<String> cold = source.get();
    if (cold == null || cold.isEmpty()) {
      return;
    }
    int n = 0;
    for (String file : cold) {
      if (files.idOf(file) >= 0) {
        n += evictFile.applyAsInt(file);
      }
    }
    if (n > 0) {
      evicted.add(n);
      LOG.debug("{}: evicted {} blocks of {} cold files (data tiering)", tier, n, cold.size());
    }
  }

  /** Blocks evicted because their file was cold. */
  long evicted() {
    return evicted.sum();
  }
}
