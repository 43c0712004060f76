/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.core.file.CompleteFiles;
import io.tiercache.core.file.HFiles;
import io.tiercache.core.file.Keys;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.HFileInfo;
import org.apache.hadoop.hbase.regionserver.DataTieringManager;
import org.apache.hadoop.hbase.util.Pair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the L2 answers HBase 2.6 about whole files and regions, as HBase's BucketCache does:
 * which files prefetch cached completely ({@code notifyFileCachingCompleted},
 * {@code getFullyCachedFiles}: {@code Admin#getCachedFilesList}, and prefetch skipping a file
 * already cached), the cached bytes per region ({@code getRegionCachedInfo}: the region cached
 * ratio in {@code ServerMetrics}, the cache-aware balancer), and whether data tiering wants a
 * file or block cached at all ({@code shouldCacheFile}, {@code shouldCacheBlock}, answered by
 * HBase's own {@link DataTieringManager}).
 *
 * <h2>Invariants</h2>
 * A file is listed as fully cached only while the L2 still holds at least the data blocks it held
 * when prefetch reported it complete: each listing is checked against the {@link HFiles}'
 * live count when read, so an eviction needs no hook here to unlist the file.
 *
 * <h2>Concurrency</h2>
 * Any thread; the map is concurrent and each check reads the registry's count under its lock.
 */
final class FileResidency {
  private static final Logger LOG = LoggerFactory.getLogger(FileResidency.class);

  private final String tier;
  private final HFiles<?> files;
  private final CompleteFiles complete;

  private final BiConsumer<String, Throwable> unexpected;

  /** {@code unexpected} records a failure caught at the tier's boundary. */
  FileResidency(String tier, HFiles<?> files, BiConsumer<String, Throwable> unexpected) {
    this.tier = tier;
    this.files = files;
    this.unexpected = unexpected;
    this.complete = new CompleteFiles(files::dataBlocksOf);
  }

  /**
   * Prefetch has read {@code file}, {@code dataBlocks} of whose blocks are data blocks; it is
   * fully cached if the L2 holds all of them. {@code settle} waits for queued writes (a block
   * still queued is not yet counted) and says whether they settled.
   */
  void completed(Path file, int dataBlocks, long size, BooleanSupplier settle) {
    try {
      complete(file, dataBlocks, size, settle);
    } catch (Throwable t) {
      unexpected.accept("notifyFileCachingCompleted of " + file, t);
    }
  }

  private void complete(Path file, int dataBlocks, long size, BooleanSupplier settle) {
    String name = file.getName();
    // Blocks restored from a checkpoint have no region until a key with the path names it: this
    // one does, so a warm restart reports the region's cached bytes once prefetch has run.
    files.setRegion(name, Keys.regionOfFile(file));
    int held = complete.completed(file, dataBlocks, size, settle);
    if (held >= dataBlocks) {
      LOG.debug("{}: {} is fully cached ({} data blocks)", tier, file, dataBlocks);
    } else {
      LOG.debug("{}: prefetch of {} done, but only {} of its {} data blocks are cached (full or "
          + "evicting)", tier, file, held, dataBlocks);
    }
  }

  /** Whether {@code file} is listed and still holds what it held when completed. */
  boolean isComplete(String file) {
    return complete.isComplete(file);
  }

  /** File name to (region, size) of every file still fully cached. */
  Map<String, Pair<String, Long>> fullyCached() {
    return complete.fullyCached();
  }

  /** Cached bytes per region's encoded name (regions with none are absent). */
  Map<String, Long> regionBytes() {
    return Collections.unmodifiableMap(files.regionBytes());
  }

  /** Forgets {@code file} (its blocks were evicted on purpose). */
  void forget(String file) {
    complete.forget(file);
  }

  /**
   * HBase's answer: not a cold file under data tiering, and not already fully cached (prefetch
   * then skips it).
   */
  Optional<Boolean> shouldCacheFile(HFileInfo info, Configuration conf) {
    try {
      return hotAndIncomplete(info, conf);
    } catch (Throwable t) {
      unexpected.accept("shouldCacheFile", t);
      return Optional.empty();
    }
  }

  private Optional<Boolean> hotAndIncomplete(HFileInfo info, Configuration conf) {
    String name = info.getHFileContext().getHFileName();
    DataTieringManager tiering = DataTieringManager.getInstance();
    if (tiering != null && !tiering.isHotData(info, conf)) {
      LOG.debug("{}: data tiering says {} is cold: not cached", tier, name);
      return Optional.of(false);
    }
    return Optional.of(!isComplete(name));
  }

  /** HBase's answer: a block of a file whose newest cell is cold under data tiering is not. */
  Optional<Boolean> shouldCacheBlock(BlockCacheKey key, long maxTimestamp,
      Configuration conf) {
    try {
      DataTieringManager tiering = DataTieringManager.getInstance();
      return Optional.of(tiering == null || tiering.isHotData(maxTimestamp, conf));
    } catch (Throwable t) {
      unexpected.accept("shouldCacheBlock of " + key, t);
      return Optional.empty();
    }
  }
}
