/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.subject;

import io.tiercache.bucket.BucketTier;
import org.apache.hadoop.hbase.io.hfile.BlockCache;

/** Waiting for a cache's asynchronous writes, for the benchmarks that measure a filled cache. */
public final class Writes {
  private Writes() {}

  /**
   * Returns once the cache's writers are done: TierCache's L2 says so ({@code flush}); HBase's
   * BucketCache has no signal, so its block count is watched until it reaches {@code expected}
   * or stops changing, bounded by {@code timeoutMs}.
   */
  public static void awaitWritten(BlockCache cache, long expected, long timeoutMs) {
    if (cache instanceof BucketTier) {
      ((BucketTier) cache).flush(timeoutMs);
      return;
    }
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    long last = -1;
    int stable = 0;
    while (System.nanoTime() < deadline && stable < 200_000) {
      long now = cache.getBlockCount();
      if (now == expected) {
        return;
      }
      stable = now == last ? stable + 1 : 0;
      last = now;
      Thread.yield();
    }
  }
}
