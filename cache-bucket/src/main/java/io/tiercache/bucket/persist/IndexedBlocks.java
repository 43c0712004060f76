/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.core.file.FileRegistry;

/**
 * What checkpoints and restores see of the L2's bookkeeping (the tier's {@code BlockStore}):
 * the allocator with its slot records, the index and the file registry, which a checkpoint
 * reads and a restore fills, with the counters they keep in step.
 *
 * <p>Implementations are thread safe; a restore runs before the tier takes inserts.
 */
public interface IndexedBlocks {
  SlabAllocator slabs();

  BlockIndex index();

  FileRegistry files();

  /** Publications and removals so far: a checkpoint is written only when this moved. */
  long mutations();

  /** Counts slot {@code handle}, just restored into the index, among the cached blocks. */
  void restored(long handle);
}
