/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.persist.Restore;
import io.tiercache.bucket.write.WriteBehind;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;

/**
 * The L2's evictions by key and by file (HBase's {@code evictBlock},
 * {@code evictBlocksByHfileName}, {@code evictBlocksRangeByHfileName}): a block is removed
 * whether it is still pending or written, and recorded for replay while the restore runs
 * ({@link Restore#evicting}). Eviction for capacity (CLOCK, slab drains) is the allocator's
 * ({@code BlockStore#allocate}).
 *
 * <p>Any thread; each call contains its failures ({@link BucketTier#unexpected}).
 */
final class FileEvictions {
  private final BucketTier tier;
  private final BlockStore store;
  private final WriteBehind writeBehind;
  private final FileResidency residency;

  FileEvictions(BucketTier tier, WriteBehind writeBehind, FileResidency residency) {
    this.tier = tier;
    this.store = tier.store;
    this.writeBehind = writeBehind;
    this.residency = residency;
  }

  /**
   * See {@link BucketTier#evictBlock}. A use of the engine while it runs (a durable index, as
   * {@code pmem:}'s, is engine memory): once the tier is closed there is nothing to evict, its
   * shutdown drops every block, and the engine may be closing.
   */
  boolean evictBlock(BlockCacheKey key) {
    if (!tier.guard.enter()) {
      return false;
    }
    try {
      tier.restore.evicting(key.getHfileName(), key.getOffset(), key.getOffset());
      return store.evict(key, () -> writeBehind.remove(key));
    } catch (Throwable t) {
      tier.unexpected("evictBlock of " + key, t);
      return false;
    } finally {
      tier.guard.exit();
    }
  }

  /** See {@link BucketTier#evictBlocksRangeByHfileName}. */
  int evictRange(String hfileName, long initOffset, long endOffset) {
    try {
      residency.forget(hfileName);
      tier.restore.evicting(hfileName, initOffset, endOffset);
      return evictFile(hfileName, initOffset, endOffset);
    } catch (Throwable t) {
      tier.unexpected("evictBlocksByHfileName of " + hfileName, t);
      return 0;
    }
  }

  /**
   * Evicts the blocks of {@code hfileName} at block offsets {@code [initOffset, endOffset]},
   * queued or written, without recording them for the restore; O(blocks of that file).
   */
  int evictFile(String hfileName, long initOffset, long endOffset) {
    int n = 0;
    for (BlockCacheKey key : writeBehind.keys()) {
      if (key.getHfileName().equals(hfileName) && key.getOffset() >= initOffset
          && key.getOffset() <= endOffset && evictBlock(key)) {
        n++;
      }
    }
    for (long blockOffset : store.index.blockOffsets(hfileName)) {
      if (blockOffset >= initOffset && blockOffset <= endOffset
          && evictBlock(new BlockCacheKey(hfileName, blockOffset))) {
        n++;
      }
    }
    return n;
  }
}
