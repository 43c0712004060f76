/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.file.CompleteFiles;
import io.tiercache.lru.LruTier;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.util.Pair;

/**
 * The fully-cached-files state ({@code notifyFileCachingCompleted}, {@code getFullyCachedFiles},
 * and prefetch skipping a file already cached) of {@code exclusive} mode, where a file's data
 * blocks are split between the tiers: prefetch caches into the L1, whose victims move to the L2,
 * and a promoted block moves back; and of {@code hot} mode with {@code move} promotion, where a
 * promoted block the L1 serves leaves the L2 and an L1 victim may come back. A file counts as fully cached while the L1 and the L2 together
 * hold at least the data blocks prefetch counted. (In {@code hbase} mode data blocks live in the
 * L2, and in {@code inclusive} mode the L2 holds every block the L1 does, so there the L2's own
 * state is the answer.)
 *
 * <h2>Invariants</h2>
 * A file is listed only while {@code l1.dataBlocksOf + l2.dataBlocksOf} is at least its count at
 * completion, checked when read, so evictions need no hook here. A block in transit (an L1 victim
 * still queued for the L2) is in neither count: {@link #completed} waits for the L2's queue first,
 * as the L2 alone does; a promoted block briefly in both counts twice, which can only keep a
 * complete file listed.
 *
 * <h2>Concurrency</h2>
 * Any thread: the map is concurrent, and each tier's count is read under its registry's lock.
 */
final class SplitResidency {
  private final BucketTier l2;
  private final CompleteFiles complete;

  SplitResidency(LruTier l1, BucketTier l2) {
    this.l2 = l2;
    this.complete = new CompleteFiles(file -> l1.dataBlocksOf(file) + l2.dataBlocksOf(file));
  }

  /** Prefetch has read {@code file}, {@code dataBlocks} of whose blocks are data blocks. */
  void completed(Path file, int dataBlocks, long size) {
    // L1 victims still queued for the L2 are counted by neither tier: wait for the L2's queue.
    complete.completed(file, dataBlocks, size, () -> l2.flush(10_000));
  }

  /** Whether {@code file} is listed and the tiers still hold what they held when completed. */
  boolean isComplete(String file) {
    return complete.isComplete(file);
  }

  /** File name to (region, size) of every file still fully cached. */
  Map<String, Pair<String, Long>> fullyCached() {
    return complete.fullyCached();
  }
}
