/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import io.tiercache.bench.data.Blocks;
import io.tiercache.bench.subject.CacheSpec;
import io.tiercache.bench.subject.Scratch;
import io.tiercache.bench.subject.Subjects;
import io.tiercache.core.config.Sizes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;

/**
 * A subject's cache for a microbenchmark: built by name from {@link Subjects#standard()}, with a
 * scratch directory for file engines (tmpfs where there is one), and keys of {@code files}
 * HFiles. The block cached under every key is one shared heap {@link HFileBlock}: the caches
 * reference-count it, and the serializing ones copy it as they would any block.
 *
 * <p>Concurrency: built and closed by JMH's setup thread; {@link #key} is read-only.
 */
final class BenchCache implements AutoCloseable {
  final BlockCache cache;
  final HFileBlock block;
  private final Path scratch;
  private final String[] fileNames;
  private final int blockBytes;

  BenchCache(String subject, String capacity, int blockBytes, int files) throws Exception {
    Path base = Files.isWritable(Paths.get("/dev/shm")) ? Paths.get("/dev/shm")
        : Paths.get(System.getProperty("java.io.tmpdir"));
    this.scratch = Files.createTempDirectory(base, "tiercache-jmh-");
    this.blockBytes = blockBytes;
    this.fileNames = new String[files];
    for (int f = 0; f < files; f++) {
      fileNames[f] = Blocks.fileName(42, f);
    }
    // Fills wait for BucketCache's writer queue (waitWhenCache) rather than dropping blocks.
    CacheSpec spec = new CacheSpec(Sizes.parseBytes(capacity), blockBytes, scratch)
        .with("hbase.bucketcache.queue.addition.waittime", "1000");
    this.cache = Subjects.standard().get(subject).create(spec);
    this.block = Blocks.random(fileNames[0], 0, blockBytes, 7);
  }

  /** The key of block {@code index} of file {@code file}. */
  BlockCacheKey key(int file, long index) {
    return new BlockCacheKey(fileNames[file], index * blockBytes, true, BlockType.DATA);
  }

  String fileName(int file) {
    return fileNames[file];
  }

  /** Blocks of {@code blockBytes} that fill {@code fraction} of the capacity. */
  int blocksFor(double fraction) {
    return (int) (fraction * cache.getMaxSize() / (blockBytes + 512));
  }

  /** Caches the shared block under {@code key}, waiting for a full writer queue. */
  void fill(BlockCacheKey key) {
    cache.cacheBlock(key, block, false, true);
  }

  /**
   * Returns once every key that is still waiting in a BucketCache writer queue has been written
   * (or dropped), so what follows measures the cache's steady state. Caches that write
   * synchronously say nothing through {@link BlockCache#isAlreadyCached} and return at once.
   * There is no public signal for "drained", so this yields in a loop, bounded by 30 s.
   */
  void awaitWritten(BlockCacheKey... keys) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    for (BlockCacheKey key : keys) {
      while (pending(key)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("writer queues did not drain in 30 s");
        }
        Thread.yield();
      }
    }
  }

  private boolean pending(BlockCacheKey key) {
    if (cache.isAlreadyCached(key).orElse(true)) {
      return false;
    }
    org.apache.hadoop.hbase.io.hfile.Cacheable b = cache.getBlock(key, false, true, false);
    if (b == null) {
      return false;
    }
    b.release();
    return true;
  }

  /** Reads {@code key}; returns the block's length, or -1 on a miss. */
  int get(BlockCacheKey key) {
    org.apache.hadoop.hbase.io.hfile.Cacheable b = cache.getBlock(key, true, false, true);
    if (b == null) {
      return -1;
    }
    int length = b.getSerializedLength();
    b.release();
    return length;
  }

  @Override
  public void close() throws IOException {
    cache.shutdown();
    block.release();
    Scratch.deleteTree(scratch);
  }
}
