/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import io.tiercache.bench.data.Dataset;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;

/**
 * Reads a block the way HBase's {@code HFileReaderImpl#readBlock} does: ask the cache; on a miss
 * read the block from the file and cache it; use the block; release it.
 *
 * <p>Every block served is checked against the bytes it must hold; a cache that returns another
 * block's bytes fails the run with {@link WrongBlockException}.
 *
 * <p>Concurrency: stateless; any thread.
 */
public final class Reader {
  private Reader() {}

  /**
   * Reads block {@code id} through {@code cache}.
   *
   * @return whether the cache had it
   */
  public static boolean read(BlockCache cache, Dataset dataset, int id) {
    return read(cache, dataset, id, MissDelay.NONE);
  }

  /**
   * Reads block {@code id} through {@code cache}; a miss first waits {@code delay} (a remote
   * read), then reads the block from the file.
   *
   * @return whether the cache had it
   */
  public static boolean read(BlockCache cache, Dataset dataset, int id, MissDelay delay) {
    return read(cache, dataset, id, delay, null);
  }

  /**
   * As {@link #read(BlockCache, Dataset, int, MissDelay)}, and a miss records in {@code times}
   * (if not null) how long it took to fetch the block (the wait and the read) and to cache it.
   *
   * @return whether the cache had it
   */
  public static boolean read(BlockCache cache, Dataset dataset, int id, MissDelay delay,
      MissTimes times) {
    BlockCacheKey key = dataset.key(id);
    Cacheable block = cache.getBlock(key, true, false, true);
    boolean hit = block != null;
    if (!hit) {
      long fetchStart = times != null ? System.nanoTime() : 0;
      delay.await();
      try {
        block = dataset.read(id);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      long insertStart = times != null ? System.nanoTime() : 0;
      cache.cacheBlock(key, block, false);
      if (times != null) {
        times.record(insertStart - fetchStart, System.nanoTime() - insertStart,
            block.getSerializedLength());
      }
    }
    try {
      if (!dataset.verify(id, block)) {
        throw new WrongBlockException("cache returned other bytes for " + key + " (block " + id
            + (hit ? ", a hit)" : ", just read)"));
      }
    } finally {
      block.release();
    }
    return hit;
  }

  /** Thrown when a cache serves bytes other than those cached under the key. */
  public static final class WrongBlockException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    WrongBlockException(String message) {
      super(message);
    }
  }
}
