/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.core.config.CacheSettings;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;

/**
 * Builds a {@link BucketTier} in code. Defaults are those of the configuration keys; every value
 * is validated against the same range as its key.
 */
public final class BucketTierBuilder {
  private String ioEngine = CacheSettings.L2_IOENGINE.defaultValue();
  private long capacity = -1;
  private int[] bucketSizes = CacheSettings.L2_BUCKET_SIZES.defaultValue();
  private long slabSize = CacheSettings.L2_SLAB_SIZE.defaultValue();
  private int writerThreads = CacheSettings.L2_WRITER_THREADS.defaultValue();
  private int writerQueue = CacheSettings.L2_WRITER_QUEUE.defaultValue();
  private String persistentPath;
  private int persistIntervalMs = CacheSettings.L2_PERSIST_INTERVAL_MS.defaultValue();
  private int journalCompactPercent = CacheSettings.L2_JOURNAL_COMPACT_PERCENT.defaultValue();
  private int errorsToleratedMs = CacheSettings.L2_ERRORS_TOLERATED_MS.defaultValue();
  private String pmemBackend = CacheSettings.PMEM_BACKEND.defaultValue();
  private ByteBuffAllocator buffers = ByteBuffAllocator.HEAP;
  private String name = "L2";
  private String admission = CacheSettings.L2_ADMISSION.defaultValue();
  private String writeMode = CacheSettings.L2_WRITE_MODE.defaultValue();
  private long blockSizeHint = CacheSettings.BLOCK_SIZE_HINT.defaultValue();

  BucketTierBuilder() {}

  /** Engine spec as in {@code hbase.bucketcache.ioengine}, e.g. {@code offheap}. */
  public BucketTierBuilder ioEngine(String spec) {
    this.ioEngine = spec;
    return this;
  }

  /** Capacity in bytes; rounded down to whole slabs. Required. */
  public BucketTierBuilder capacity(long bytes) {
    this.capacity = bytes;
    return this;
  }

  public BucketTierBuilder bucketSizes(int... sizes) {
    this.bucketSizes = sizes.clone();
    return this;
  }

  public BucketTierBuilder slabSize(long bytes) {
    this.slabSize = bytes;
    return this;
  }

  public BucketTierBuilder writers(int threads, int queueLength) {
    this.writerThreads = threads;
    this.writerQueue = queueLength;
    return this;
  }

  public BucketTierBuilder persistentPath(String path) {
    this.persistentPath = path;
    return this;
  }

  /** {@code tiercache.l2.journal.compact.percent}. */
  public BucketTierBuilder journalCompactPercent(int percent) {
    this.journalCompactPercent = percent;
    return this;
  }

  public BucketTierBuilder persistIntervalMs(int ms) {
    this.persistIntervalMs = ms;
    return this;
  }

  public BucketTierBuilder errorsToleratedMs(int ms) {
    this.errorsToleratedMs = ms;
    return this;
  }

  /** Allocator for the buffers file engines read into (HBase's RegionServer allocator). */
  public BucketTierBuilder buffers(ByteBuffAllocator allocator) {
    this.buffers = allocator;
    return this;
  }

  /** {@code tiercache.pmem.backend}: {@code dax} or {@code llpl}, for a {@code pmem:} engine. */
  public BucketTierBuilder pmemBackend(String backend) {
    this.pmemBackend = backend;
    return this;
  }

  /** {@code tiercache.l2.write.mode}: {@code inline} or {@code queued}. */
  public BucketTierBuilder writeMode(String mode) {
    this.writeMode = mode;
    return this;
  }

  /** {@code tiercache.l2.admission}: {@code tinylfu} or {@code all}. */
  public BucketTierBuilder admission(String mode) {
    this.admission = mode;
    return this;
  }

  /** {@code hbase.blockcache.minblocksize}: the typical block size, which sizes the sketch. */
  public BucketTierBuilder blockSizeHint(long bytes) {
    this.blockSizeHint = bytes;
    return this;
  }

  public BucketTierBuilder name(String name) {
    this.name = name;
    return this;
  }

  public BucketTier build() {
    BucketConfig config = new BucketConfig(ioEngine, capacity, bucketSizes, slabSize,
        writerThreads, writerQueue, persistentPath, persistIntervalMs, errorsToleratedMs,
        pmemBackend);
    config.admission = CacheSettings.L2_ADMISSION.check(admission);
    config.writeMode = CacheSettings.L2_WRITE_MODE.check(writeMode);
    config.journalCompactPercent =
        CacheSettings.L2_JOURNAL_COMPACT_PERCENT.check(journalCompactPercent);
    config.blockSizeHint = CacheSettings.BLOCK_SIZE_HINT.check(blockSizeHint);
    return new BucketTier(config, name, buffers);
  }
}
