/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.admit.Admission;
import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.write.Pending;
import io.tiercache.bucket.write.WriteBehind;
import io.tiercache.core.file.Keys;
import io.tiercache.core.log.LogLimit;
import io.tiercache.core.ref.RefCounts;
import io.tiercache.core.stats.TierStats;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L2's read path: a lookup pins the slot before its file's index table may change (see
 * {@code index.FileTable}; the pin's CAS also raises the slot's CLOCK frequency) and the codec
 * materialises the block (zero copy for memory engines, whose block unpins on its last release;
 * a copy for file engines, unpinned at once); a pending block is served from the write-behind.
 * A slot whose checksum fails is dropped and counted.
 *
 * <h2>Concurrency</h2>
 * Any thread; every engine access is inside {@link EngineGuard#enter}/{@code exit}.
 */
final class Reads {
  private static final Logger LOG = LoggerFactory.getLogger(BucketTier.class);

  private final BucketTier tier;
  private final String name;
  private final BlockStore store;
  private final SlabAllocator slabs;
  private final BlockCodec codec;
  private final FaultTracker faults;
  private final TierStats stats;
  private final Admission admission;
  private final WriteBehind writeBehind;
  private final EngineGuard guard;
  private final LongAdder checksumFailures = new LongAdder();
  private final LogLimit checksumLog = new LogLimit(LogLimit.MINUTE);

  /** Reads for {@code tier}, whose parts are built (its constructor calls this last). */
  Reads(BucketTier tier, WriteBehind writeBehind) {
    this.tier = tier;
    this.name = tier.name;
    this.store = tier.store;
    this.slabs = tier.slabs;
    this.codec = tier.codec;
    this.faults = tier.faults;
    this.stats = tier.stats;
    this.admission = tier.admission;
    this.guard = tier.guard;
    this.writeBehind = writeBehind;
  }

  Cacheable lookup(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    if (!repeat) {
      admission.lookedUp(key);
    }
    Cacheable found = null;
    if (!guard.isClosed() && !faults.disabled()) {
      found = readWritten(key);
      if (found == null) {
        Pending p = writeBehind.get(key);
        if (p != null && RefCounts.tryRetain(p.block)) {
          found = p.block;
        }
      }
    }
    if (found != null) {
      if (!repeat) {
        admission.hit(key);
      }
      if (updateCacheMetrics) {
        stats.hit(caching, key.isPrimary(), key.getBlockType());
      }
    } else if (!repeat) {
      admission.missed(key);
      if (updateCacheMetrics) {
        stats.miss(caching, key.isPrimary(), key.getBlockType());
      }
    }
    return found;
  }

  private Cacheable readWritten(BlockCacheKey requested) {
    if (!guard.enter()) {
      return null;
    }
    BlockCacheKey found = requested;
    long pinned = store.pin(found);
    if (pinned == Handles.NONE) {
      // A split daughter's reference reads its parent's blocks, as HBase's BucketCache does.
      found = Keys.referredKey(requested);
      pinned = found == null ? Handles.NONE : store.pin(found);
    }
    if (pinned == Handles.NONE) {
      guard.exit();
      return null;
    }
    BlockCacheKey key = found;
    long h = pinned;
    try {
      Cacheable block = codec.read(h, slabs, () -> unpin(h));
      if (block == null) {
        checksumFailures.increment();
        long quiet = checksumLog.admit(System.nanoTime());
        if (quiet >= 0) {
          LOG.warn("{}: block {} failed its checksum (or its record is damaged) and was dropped "
              + "({} more since the last such line, {} in all; at most one line a minute)", name,
              key, quiet, checksumFailures.sum());
        }
        // codec.read has unpinned h: it may hold another block by now, so drop it only if the
        // index still maps this key to it.
        evictIfOpen(key, h);
        return null;
      }
      faults.success(); // the pin counted the access (CLOCK frequency, slab recency)
      return block;
    } catch (IOException e) {
      if (faults.error("read of " + key, e)) {
        tier.disable();
      }
      return null;
    } catch (RuntimeException | Error e) { // codec.read has unpinned h
      tier.unexpected("read of " + key, e);
      return null;
    }
  }

  /** See {@link BucketTier#isAlreadyCached}. */
  Optional<Boolean> isAlreadyCached(BlockCacheKey key) {
    try {
      if (store.contains(key)) {
        return Optional.of(true);
      }
      BlockCacheKey parent = Keys.referredKey(key);
      return Optional.of(parent != null && store.contains(parent));
    } catch (Throwable t) {
      tier.unexpected("isAlreadyCached of " + key, t);
      return Optional.of(false);
    }
  }

  /** See {@link BucketTier#getBlockSize}. */
  Optional<Integer> blockSize(BlockCacheKey key) {
    try {
      int size = onDiskSize(key);
      if (size < 0) {
        BlockCacheKey parent = Keys.referredKey(key);
        size = parent == null ? -1 : onDiskSize(parent);
      }
      return size < 0 ? Optional.empty() : Optional.of(size);
    } catch (Throwable t) {
      tier.unexpected("getBlockSize of " + key, t);
      return Optional.empty();
    }
  }

  /**
   * The on-disk size with header of the written block of {@code key} (read from the block's
   * header, see {@link BlockCodec#onDiskSizeWithHeader}), or -1 if it is not written or its
   * checksum fails (then it is dropped).
   */
  private int onDiskSize(BlockCacheKey key) {
    if (guard.isClosed() || faults.disabled() || !guard.enter()) {
      return -1;
    }
    long h = store.pin(key);
    if (h == Handles.NONE) {
      guard.exit();
      return -1;
    }
    try {
      int size = codec.onDiskSizeWithHeader(h, slabs);
      if (size < 0) {
        checksumFailures.increment();
        long quiet = checksumLog.admit(System.nanoTime());
        if (quiet >= 0) {
          LOG.warn("{}: block {} failed its checksum and was dropped ({} more since the last "
              + "such line, {} in all; at most one line a minute)", name, key, quiet,
              checksumFailures.sum());
        }
        unpin(h);
        evictIfOpen(key, h);
        return -1;
      }
      unpin(h);
      return size;
    } catch (IOException e) {
      unpin(h);
      if (faults.error("read of " + key, e)) {
        tier.disable();
      }
      return -1;
    } catch (RuntimeException | Error e) {
      unpin(h);
      throw e;
    }
  }

  private void unpin(long h) {
    slabs.unpin(h);
    guard.exit();
  }

  /**
   * Drops the damaged block of {@code key} if the index still maps it to {@code h}, as a use of
   * the engine (a {@code pmem:} L2's index is in the pool): after this reader's unpin the tier may
   * be shutting down, and then its shutdown drops the block.
   */
  private void evictIfOpen(BlockCacheKey key, long h) {
    if (guard.enter()) {
      try {
        store.evict(key, h);
      } finally {
        guard.exit();
      }
    }
  }

  /** Blocks dropped because their checksum failed. */
  long checksumFailures() {
    return checksumFailures.sum();
  }
}
