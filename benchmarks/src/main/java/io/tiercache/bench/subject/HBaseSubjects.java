/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.subject;

import static io.tiercache.bench.subject.Subject.Vendor.HBASE;

import java.io.IOException;
import java.util.concurrent.ForkJoinPool;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheFactory;
import org.apache.hadoop.hbase.io.hfile.CombinedBlockCache;
import org.apache.hadoop.hbase.io.hfile.LruAdaptiveBlockCache;
import org.apache.hadoop.hbase.io.hfile.LruBlockCache;
import org.apache.hadoop.hbase.io.hfile.TinyLfuBlockCache;
import org.apache.hadoop.hbase.io.hfile.bucket.BucketCache;

/**
 * HBase's own block caches, built as {@code BlockCacheFactory} builds them in a RegionServer
 * (same constructors, HBase's defaults for everything but the size).
 *
 * <p>{@code hbase-combined} is HBase's default deployment with an L2: an {@code LruBlockCache} L1
 * for index and bloom blocks (a tenth of the capacity) and an off-heap {@code BucketCache} L2 for
 * data blocks (the rest). The file and mmap engines keep their files in the spec's scratch
 * directory (tmpfs in the showdown).
 */
public final class HBaseSubjects {
  /** Share of the capacity given to the L1 of {@code hbase-combined}. */
  public static final double COMBINED_L1_SHARE = 0.1;

  private HBaseSubjects() {}

  static void registerAll(Subjects s) {
    s.add("hbase-lru", HBASE, "HBase LruBlockCache (on heap)",
        spec -> new LruBlockCache(spec.capacity(), spec.blockSize(), true, spec.conf()));
    s.add("hbase-tinylfu", HBASE, "HBase TinyLfuBlockCache (Caffeine, on heap)",
        spec -> new TinyLfuBlockCache(spec.capacity(), spec.blockSize(), ForkJoinPool.commonPool(),
            spec.conf()));
    s.add("hbase-adaptive", HBASE, "HBase LruAdaptiveBlockCache (on heap)",
        spec -> new LruAdaptiveBlockCache(spec.capacity(), spec.blockSize(), true, spec.conf()));
    s.add("hbase-bucket-offheap", HBASE, "HBase BucketCache, offheap engine",
        spec -> bucket("offheap", spec.capacity(), spec));
    s.add("hbase-bucket-file", HBASE, "HBase BucketCache, file engine (tmpfs)",
        spec -> bucket("file:" + spec.file("bucket.cache"), spec.capacity(), spec));
    s.add("hbase-bucket-mmap", HBASE, "HBase BucketCache, mmap engine (tmpfs)",
        spec -> bucket("mmap:" + spec.file("bucket.mmap"), spec.capacity(), spec));
    // HBase 2.6's pmem: is SharedMemoryMmapIOEngine, a shared mapping of any file; not persistent.
    s.add("hbase-bucket-pmem", HBASE, "HBase BucketCache, pmem engine (shared mmap, tmpfs)",
        spec -> bucket("pmem:" + spec.file("bucket.pmem"), spec.capacity(), spec));
    s.add("hbase-combined", HBASE, "HBase CombinedBlockCache: LruBlockCache L1 + offheap BucketCache L2",
        HBaseSubjects::combined);
  }

  /** A BucketCache with HBase's default bucket sizes, writer threads and queue length. */
  static BucketCache bucket(String engine, long capacity, CacheSpec spec) throws IOException {
    Configuration conf = spec.conf();
    return new BucketCache(engine, capacity, spec.blockSize(), null,
        conf.getInt(BlockCacheFactory.BUCKET_CACHE_WRITER_THREADS_KEY,
            BlockCacheFactory.DEFAULT_BUCKET_CACHE_WRITER_THREADS),
        conf.getInt(BlockCacheFactory.BUCKET_CACHE_WRITER_QUEUE_KEY,
            BlockCacheFactory.DEFAULT_BUCKET_CACHE_WRITER_QUEUE),
        null, BucketCache.DEFAULT_ERROR_TOLERATION_DURATION, conf);
  }

  private static CombinedBlockCache combined(CacheSpec spec) throws IOException {
    long l1 = (long) (spec.capacity() * COMBINED_L1_SHARE);
    LruBlockCache lru = new LruBlockCache(l1, spec.blockSize(), true, spec.conf());
    return new CombinedBlockCache(lru, bucket("offheap", spec.capacity() - l1, spec));
  }
}
