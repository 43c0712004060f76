/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.scale;

import io.tiercache.bucket.BucketTier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.bucket.BucketCache;

/**
 * The scale run's subjects, each a persistent L2 of 4 KB buckets opened on files in a directory,
 * so it can be shut down (or killed) and opened again on the same files:
 * <ul>
 *   <li>{@code tiercache-file}: {@code BucketTier} on {@code file:} with
 *       {@code hbase.bucketcache.persistent.path}, built from a {@code Configuration};</li>
 *   <li>{@code tiercache-pmem}: {@code BucketTier} on {@code pmem:} (dax back end), whose index
 *       lives in the pool;</li>
 *   <li>{@code hbase-bucket-file}: HBase's {@code BucketCache} on {@code file:} with its
 *       persistent path.</li>
 * </ul>
 * Both caches persist every {@code hbase.bucketcache.persist.intervalinmillis} (1 s, the default
 * of both). TierCache's subjects admit every block ({@code tiercache.l2.admission=all}, as
 * BucketCache does), so every size sees the same churn.
 *
 * <p>Concurrency: the methods are stateless; a {@link PersistFile} is polled by one thread.
 */
final class ScaleCache {
  static final String TIERCACHE_FILE = "tiercache-file";
  static final String TIERCACHE_PMEM = "tiercache-pmem";
  static final String HBASE_FILE = "hbase-bucket-file";
  static final List<String> SUBJECTS = Arrays.asList(TIERCACHE_FILE, TIERCACHE_PMEM, HBASE_FILE);
  static final long SLAB = 4L << 20;
  /**
   * HBase's bucket: its smallest default (4 KB + 1 KB). Given 4,096-byte buckets, BucketCache
   * 2.6.4 counted 2,048 blocks written but its map held none of them at shutdown (and its
   * persistence file then had no chunk, which its restart fails on with a NullPointerException);
   * with 5,120 it keeps them. Its capacity is raised so it holds the same number of blocks.
   */
  static final int HBASE_BUCKET = 5 * 1024;
  static final int PERSIST_INTERVAL_MS = 1000;

  private ScaleCache() {}

  /** Cache capacity for {@code blocks} 4 KB blocks, in whole 4 MB slabs. */
  static long capacity(long blocks) {
    return (blocks * ScaleBlocks.SLOT + SLAB - 1) / SLAB * SLAB;
  }

  /** Capacity of {@code subject} for {@code blocks} blocks. */
  static long capacity(String subject, long blocks) {
    return subject.equals(HBASE_FILE) ? capacity(blocks) / ScaleBlocks.SLOT * HBASE_BUCKET
        : capacity(blocks);
  }

  /** The directory a subject's files live in: pmem under {@code pmemDir}, others under dir. */
  static Path home(String subject, Path dir, Path pmemDir) {
    return subject.equals(TIERCACHE_PMEM) ? pmemDir.resolve(subject) : dir.resolve(subject);
  }

  /** The file HBase's BucketCache persists its map into. */
  static Path hbasePersistFile(Path home) {
    return home.resolve("bucket.persist");
  }

  /** Opens (or reopens, warm) {@code subject} for {@code blocks} blocks in {@code home}. */
  static BlockCache open(String subject, long blocks, Path home) throws IOException {
    Files.createDirectories(home);
    long capacity = capacity(subject, blocks);
    switch (subject) {
      case TIERCACHE_FILE:
        return tier("file:" + home.resolve("tier.cache"), home.resolve("tier.ckpt"), capacity);
      case TIERCACHE_PMEM:
        return tier("pmem:" + home.resolve("tier.pmem"), null, capacity);
      case HBASE_FILE: {
        Configuration conf = new Configuration(false);
        conf.setLong("hbase.bucketcache.queue.addition.waittime", 10_000);
        conf.setLong("hbase.bucketcache.persist.intervalinmillis", PERSIST_INTERVAL_MS);
        return new BucketCache("file:" + home.resolve("bucket.cache"), capacity,
            HBASE_BUCKET, new int[] {HBASE_BUCKET}, 3, 64,
            hbasePersistFile(home).toString(), BucketCache.DEFAULT_ERROR_TOLERATION_DURATION,
            conf);
      }
      default:
        throw new IllegalArgumentException("unknown subject " + subject + " (accepted: "
            + String.join(", ", SUBJECTS) + ")");
    }
  }

  private static BucketTier tier(String engine, Path checkpoint, long capacity) {
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.ioengine", engine);
    conf.set("hbase.bucketcache.size", Long.toString(capacity >> 20));
    conf.set("hbase.bucketcache.bucket.sizes", Integer.toString(ScaleBlocks.SLOT));
    // 4 MB slabs, which 4 KB slots tile, as in the runs of issue 15 (the default slab is sized
    // for 64 KB blocks).
    conf.setLong("tiercache.bucket.slab.size", SLAB);
    conf.setInt("hbase.bucketcache.persist.intervalinmillis", PERSIST_INTERVAL_MS);
    if (checkpoint != null) {
      conf.set("hbase.bucketcache.persistent.path", checkpoint.toString());
    }
    conf.set("tiercache.pmem.backend", "dax");
    // Every churned block is written: the run measures what persistence costs per change at a
    // given churn, and TinyLFU admission would turn most of the never-read churn blocks away
    // (more of them the larger the cache), so the churn would differ from size to size.
    conf.set("tiercache.l2.admission", "all");
    return new BucketTier(conf);
  }

  /** Whether the thread named {@code name} writes the subject's index persistence. */
  static boolean isPersistThread(String name) {
    return name.startsWith("tiercache-") && name.endsWith("-checkpoint")
        || name.equals("bucket-cache-persister");
  }

  /**
   * HBase's persistence file watched from outside: BucketCache writes its whole map to a new
   * file and renames it over the old one, so each new file (inode) seen is one checkpoint of
   * its size. Polled every few milliseconds; a checkpoint a second is never missed.
   */
  static final class PersistFile {
    private final Path path;
    private Object lastKey;
    private long bytes;
    private long count;

    PersistFile(Path path) {
      this.path = path;
      poll();
      bytes = 0;
      count = 0;
    }

    /** Looks once; counts a new file. */
    synchronized void poll() {
      try {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
        Object key = Arrays.asList(a.fileKey(), a.lastModifiedTime(), a.size());
        if (!key.equals(lastKey)) {
          lastKey = key;
          bytes += a.size();
          count++;
        }
      } catch (IOException e) {
        // not written yet, or being renamed: look again next time
      }
    }

    /** {@code {bytes, checkpoints}} seen so far. */
    synchronized long[] writes() {
      return new long[] {bytes, count};
    }
  }
}
