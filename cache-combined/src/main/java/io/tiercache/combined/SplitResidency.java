/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.file.Keys;
import io.tiercache.lru.LruTier;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.util.Pair;

/**
 * The fully-cached-files state ({@code notifyFileCachingCompleted}, {@code getFullyCachedFiles},
 * and prefetch skipping a file already cached) of {@code exclusive} mode, where a file's data
 * blocks are split between the tiers: prefetch caches into the L1, whose victims move to the L2,
 * and a promoted block moves back. A file counts as fully cached while the L1 and the L2 together
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
  /** A fully cached file: its region, size, and data blocks when prefetch completed it. */
  private static final class Complete {
    final String region;
    final long size;
    final int dataBlocks;

    Complete(String region, long size, int dataBlocks) {
      this.region = region;
      this.size = size;
      this.dataBlocks = dataBlocks;
    }
  }

  private final LruTier l1;
  private final BucketTier l2;
  private final ConcurrentHashMap<String, Complete> complete = new ConcurrentHashMap<>();

  SplitResidency(LruTier l1, BucketTier l2) {
    this.l1 = l1;
    this.l2 = l2;
  }

  /** Prefetch has read {@code file}, {@code dataBlocks} of whose blocks are data blocks. */
  void completed(Path file, int dataBlocks, long size) {
    String name = file.getName();
    if (held(name) < dataBlocks) {
      l2.flush(10_000); // L1 victims still queued for the L2 are counted by neither tier
    }
    if (held(name) >= dataBlocks) {
      complete.put(name, new Complete(Keys.regionOfFile(file), size, dataBlocks));
    }
  }

  /** Whether {@code file} is listed and the tiers still hold what they held when completed. */
  boolean isComplete(String file) {
    Complete c = complete.get(file);
    if (c == null) {
      return false;
    }
    if (held(file) >= c.dataBlocks) {
      return true;
    }
    complete.remove(file, c);
    return false;
  }

  /** File name to (region, size) of every file still fully cached. */
  Map<String, Pair<String, Long>> fullyCached() {
    Map<String, Pair<String, Long>> out = new HashMap<>();
    for (Map.Entry<String, Complete> e : complete.entrySet()) {
      if (isComplete(e.getKey())) {
        out.put(e.getKey(), new Pair<>(e.getValue().region, e.getValue().size));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  private int held(String file) {
    return l1.dataBlocksOf(file) + l2.dataBlocksOf(file);
  }
}
