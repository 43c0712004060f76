/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.ToIntFunction;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.util.Pair;

/**
 * The files prefetch cached completely ({@code notifyFileCachingCompleted},
 * {@code getFullyCachedFiles}: {@code Admin#getCachedFilesList}, and prefetch skipping a file
 * already cached), for a cache that can count the data blocks it holds of a file: the L2 alone,
 * or both tiers of the combined cache in exclusive mode, where a file's blocks are split.
 *
 * <h2>Invariants</h2>
 * A file is listed only while the cache holds at least the data blocks prefetch counted when it
 * completed, checked when read, so evictions need no hook here (an explicit eviction of a file
 * calls {@link #forget}).
 *
 * <h2>Concurrency</h2>
 * Any thread: the map is concurrent, and the count is the caller's own thread-safe figure.
 */
public final class CompleteFiles {
  /** A fully cached file: its region, its size in the HFile, its data blocks when completed. */
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

  private final ToIntFunction<String> dataBlocksHeld;
  private final ConcurrentHashMap<String, Complete> complete = new ConcurrentHashMap<>();

  /** @param dataBlocksHeld data blocks of a file (by HFile name) the cache holds now */
  public CompleteFiles(ToIntFunction<String> dataBlocksHeld) {
    this.dataBlocksHeld = dataBlocksHeld;
  }

  /**
   * Prefetch has read {@code file}, {@code dataBlocks} of whose blocks are data blocks; lists it
   * if the cache holds all of them. {@code settle} waits for queued writes (a block still queued
   * is not yet counted) and says whether they settled; it is asked only when blocks are missing.
   * Returns the data blocks held at the decision.
   */
  public int completed(Path file, int dataBlocks, long size, BooleanSupplier settle) {
    String name = file.getName();
    int held = dataBlocksHeld.applyAsInt(name);
    if (held < dataBlocks && settle.getAsBoolean()) {
      held = dataBlocksHeld.applyAsInt(name);
    }
    if (held >= dataBlocks) {
      complete.put(name, new Complete(Keys.regionOfFile(file), size, dataBlocks));
    }
    return held;
  }

  /** Whether {@code file} is listed and the cache still holds what it held when completed. */
  public boolean isComplete(String file) {
    Complete c = complete.get(file);
    if (c == null) {
      return false;
    }
    if (dataBlocksHeld.applyAsInt(file) >= c.dataBlocks) {
      return true;
    }
    complete.remove(file, c);
    return false;
  }

  /** File name to (region, size) of every file still fully cached. */
  public Map<String, Pair<String, Long>> fullyCached() {
    Map<String, Pair<String, Long>> out = new HashMap<>();
    for (Map.Entry<String, Complete> e : complete.entrySet()) {
      if (isComplete(e.getKey())) {
        out.put(e.getKey(), new Pair<>(e.getValue().region, e.getValue().size));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /** Forgets {@code file} (its blocks were evicted on purpose). */
  public void forget(String file) {
    complete.remove(file);
  }
}
