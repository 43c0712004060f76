/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.index.BlockIndex;

/**
 * What checkpoints and restores see of the L2's bookkeeping (the tier's {@code BlockStore}):
 * the allocator with its slot records and the index with its files, which a checkpoint
 * reads and a restore fills, with the counters they keep in step.
 *
 * <p>Implementations are thread safe; a restore runs before the tier takes inserts.
 */
public interface IndexedBlocks {
  SlabAllocator slabs();

  /** The index, with its files ({@link BlockIndex#files}). */
  BlockIndex index();

  /** Publications and removals so far: a checkpoint is written only when this moved. */
  long mutations();

  /** Counts slot {@code handle}, just restored into the index, among the cached blocks. */
  void restored(long handle);

  /**
   * Removes slot {@code handle}'s block if the index still maps its key there (a journaled
   * removal or replacement replayed by the restore); not journaled. Returns whether it did.
   */
  boolean evictRestored(long handle);

  /** Removes every block from the index (a checkpoint found damaged midway); not journaled. */
  void dropAll();
}
