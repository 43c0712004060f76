/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;

/**
 * A block {@link BucketTier#cacheBlock} accepted and not yet in a slot. Immutable; holds one
 * reference to the block, released by whoever removes it from the tier's pending map or its
 * writer's queue.
 */
final class Pending {
  final BlockCacheKey key;
  final Cacheable block;
  final boolean inMemory;

  Pending(BlockCacheKey key, Cacheable block, boolean inMemory) {
    this.key = key;
    this.block = block;
    this.inMemory = inMemory;
  }

  @Override
  public String toString() {
    return "pending " + key;
  }
}
