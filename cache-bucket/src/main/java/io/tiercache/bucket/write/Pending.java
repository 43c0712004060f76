/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.write;

import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;

/**
 * A block the L2's {@code cacheBlock} accepted and not yet in a slot ({@link WriteBehind}).
 * Immutable; holds one reference to the block, released by whoever removes it from the
 * pending map or its writer's queue.
 */
public final class Pending {
  public final BlockCacheKey key;
  public final Cacheable block;
  public final boolean inMemory;

  public Pending(BlockCacheKey key, Cacheable block, boolean inMemory) {
    this.key = key;
    this.block = block;
    this.inMemory = inMemory;
  }

  @Override
  public String toString() {
    return "pending " + key;
  }
}
