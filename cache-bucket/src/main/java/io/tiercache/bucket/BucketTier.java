/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.Occupancy;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.Engines;
import io.tiercache.bucket.write.Writers;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.ref.RefCounts;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import java.io.IOException;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockCacheUtil;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TierCache's L2: an HBase {@link BlockCache} over off-heap memory, files or a memory mapping,
 * with size classes over fixed slabs, an off-heap index and zero-copy reads.
 *
 * <p>Load it with a {@code Configuration} ({@code hbase.bucketcache.*} keys, see
 * {@code docs/configuration.md}); HBase's external-cache hook can load it on its own.
 *
 * <h2>Implementation notes</h2>
 * <b>Write path.</b> {@code cacheBlock} retains the block, records it as pending (a pending
 * block is already a hit) and queues it for a writer thread ({@link Writers}). A writer allocates
 * a slot of the block's size class ({@link SlabAllocator}, which evicts by CLOCK or moves a cold
 * slab when needed), serializes the block into the engine (in place for memory engines) with a
 * CRC32C, fills the slot record, then publishes the slot in the {@link BlockIndex} and the
 * {@link FileRegistry}. If the writer's queue is full the caller writes the block itself, but only
 * into free space; it never evicts, and drops the block (counted) when no free space is left.
 * {@code waitWhenCache} callers write themselves and may evict.
 *
 * <p><b>Read path.</b> A lookup pins the slot under the index's read lock. Memory engines wrap
 * the slot's memory without copying; the block's last {@code release()} unpins it. File engines
 * copy into a buffer from the {@link ByteBuffAllocator} and unpin at once. A slot whose checksum
 * has not been verified since it was loaded from a checkpoint is verified before it is served; a
 * mismatch drops the block.
 *
 * <p><b>Checkpoints.</b> With {@code hbase.bucketcache.persistent.path} and a persistent engine,
 * {@link Checkpoints} restores the index at construction and writes it periodically and at
 * shutdown.
 *
 * <p><b>Durable index.</b> An engine that keeps its own {@link DurableIndex} ({@code pmem:}) is
 * restored from it at construction and told of every publication and removal
 * ({@link BlockStore}); no checkpoint file is written for it.
 *
 * <p><b>Eviction.</b> Removing a block takes it out of the index first; the slot is freed at
 * once if unpinned, else by the last reader ({@code SlabAllocator.evicted}). Publication and
 * removal of one key are serialised by a striped lock ({@link BlockStore}), so the index, the
 * registry and the pending map agree on every key.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>A block is returned only with a reference taken for the caller; its memory is not reused
 *       until that reference is released.</li>
 *   <li>After writes settle, index size = registry size = {@link #getBlockCount()}, and every
 *       indexed slot is allocated, not evicted, and describes its key.</li>
 *   <li>The engine is closed only once shut down and no reader holds a pinned slot and no write
 *       is in progress ({@code inEngine} is zero).</li>
 * </ul>
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method. Lock order: key stripe, then index segment, then allocator.
 */
public final class BucketTier implements CacheTier {
  private static final Logger LOG = LoggerFactory.getLogger(BucketTier.class);

  /** Slots a block is written to before it is dropped because each one's slab drained. */
  private static final int PUBLISH_ATTEMPTS = 3;

  private final BucketConfig config;
  private final String name;
  private final Engine engine;
  private final BlockStore store;
  private final SlabAllocator slabs;
  private final TierStats stats;
  private final BlockCodec codec;
  private final FaultTracker faults;
  private final ConcurrentHashMap<BlockCacheKey, Pending> pending = new ConcurrentHashMap<>();
  private final Writers<Pending> writers;
  private final Checkpoints checkpoints; // null unless a checkpoint file is configured
  /** Pinned reads plus writes in progress: the engine closes only when this is zero. */
  private final AtomicLong inEngine = new AtomicLong();
  private final LongAdder checksumFailures = new LongAdder();
  private final LongAdder fullQueueDrops = new LongAdder();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean engineClosed = new AtomicBoolean();

  /**
   * Builds an L2 from HBase configuration keys.
   *
   * @throws io.tiercache.core.config.SettingException naming the key of an invalid value, or
   *     the engine that cannot be opened
   */
  public BucketTier(Configuration conf) {
    this(BucketConfig.from(conf), "L2", ByteBuffAllocator.HEAP);
    LOG.info("TierCache {} started: {}; {}", name,
        CacheSettings.describe(conf, BucketConfig.SETTINGS), config);
  }

  BucketTier(BucketConfig config, String name, ByteBuffAllocator buffers) {
    this.config = config;
    this.name = name;
    this.stats = new TierStats(name);
    this.engine = Engines.open(config.ioEngine, config.capacity, config.slabSize,
        config.slotSizes(), config.engineOptions);
    this.slabs = new SlabAllocator(config.classes, config.capacity, config.slabSize);
    DurableIndex durable = engine.durableIndex();
    this.store = new BlockStore(slabs, stats, durable);
    this.codec = new BlockCodec(engine, buffers);
    this.faults = new FaultTracker(name, config.errorsToleratedMs, System::nanoTime);
    if (durable != null) {
      if (config.persistentPath != null) {
        LOG.info("{}: {} keeps its index itself; {} is not used", name, engine.describe(),
            CacheSettings.L2_PERSISTENT_PATH.key());
      }
      Persistence.restore(name, durable, slabs, store.index, store.files,
          h -> store.account(h, +1));
      this.checkpoints = null;
    } else if (config.persistentPath != null && engine.isPersistent()) {
      this.checkpoints = new Checkpoints(name,
          new Persistence(name, config, engine, slabs, store.index, store.files), store,
          config.persistIntervalMs, this::checkpoint);
    } else {
      this.checkpoints = null;
    }
    this.writers = new Writers<>("tiercache-" + name, config.writerThreads, config.writerQueue,
        p -> write(p, Handles.NONE)); // writer threads may evict
  }

  /** Returns a builder for an L2 configured in code. */
  public static BucketTierBuilder builder() {
    return new BucketTierBuilder();
  }

  @Override
  public String name() {
    return name;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads
  // ---------------------------------------------------------------------------------------------

  /**
   * Returns the cached block with a reference taken for the caller, who must release it. For
   * memory engines the block wraps the L2's own memory, which stays reserved until then.
   */
  @Override
  public Cacheable getBlock(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    Cacheable found = null;
    if (!closed.get() && !faults.disabled()) {
      found = readWritten(key);
      if (found == null) {
        Pending p = pending.get(key);
        if (p != null && RefCounts.tryRetain(p.block)) {
          found = p.block;
        }
      }
    }
    if (found != null) {
      if (updateCacheMetrics) {
        stats.hit(caching, key.isPrimary(), key.getBlockType());
      }
    } else if (!repeat && updateCacheMetrics) {
      stats.miss(caching, key.isPrimary(), key.getBlockType());
    }
    return found;
  }

  private Cacheable readWritten(BlockCacheKey key) {
    if (!enterEngine()) {
      return null;
    }
    long h = store.pin(key);
    if (h == Handles.NONE) {
      exitEngine();
      return null;
    }
    try {
      Cacheable block = codec.read(h, slabs, () -> unpin(h));
      if (block == null) {
        checksumFailures.increment();
        LOG.warn("{}: block {} failed its checksum (or its record is damaged) and was dropped",
            name, key);
        // codec.read has unpinned h: it may hold another block by now, so drop it only if the
        // index still maps this key to it.
        store.evict(key, h);
        return null;
      }
      faults.success();
      slabs.touch(h);
      return block;
    } catch (IOException e) {
      if (faults.error("read of " + key, e)) {
        disable();
      }
      return null;
    }
  }

  /**
   * Registers a use of engine memory (a pinned read, a write, a checkpoint) so that shutdown does
   * not close the engine under it; false if the tier is closed, and then nothing is registered.
   */
  private boolean enterEngine() {
    inEngine.incrementAndGet();
    if (closed.get()) {
      exitEngine();
      return false;
    }
    return true;
  }

  private void exitEngine() {
    if (inEngine.decrementAndGet() == 0 && closed.get()) {
      closeEngine();
    }
  }

  private void unpin(long h) {
    slabs.unpin(h);
    exitEngine();
  }

  // ---------------------------------------------------------------------------------------------
  // Writes
  // ---------------------------------------------------------------------------------------------

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf) {
    cacheBlock(key, buf, false, false);
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory) {
    cacheBlock(key, buf, inMemory, false);
  }

  /**
   * Caches {@code buf}, retaining it until it is written. Blocks larger than the largest bucket
   * size are refused and counted as failed inserts. With {@code waitWhenCache} the calling thread
   * writes the block itself, evicting if it must. When the writer's queue is full the caller
   * writes the block itself into free space (a free slot of its class or a free slab) and never
   * evicts; with no free space the block is dropped, counted as a failed insert and in
   * {@link #fullQueueDrops()}.
   */
  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache) {
    if (closed.get() || faults.disabled()) {
      return;
    }
    int sizeClass = config.classes.classOf(buf.getSerializedLength());
    if (sizeClass < 0) {
      if (stats.failInsert() % 50 == 1) {
        LOG.warn("{}: refused block {} of {} bytes, over the largest bucket size {}", name, key,
            buf.getSerializedLength(), config.classes.maxSize());
      }
      return;
    }
    if (pending.containsKey(key)
        || (store.contains(key) && !BlockCacheUtil.shouldReplaceExistingCacheBlock(this, key, buf))) {
      return;
    }
    Pending p = new Pending(key, buf.retain(), inMemory);
    if (pending.putIfAbsent(key, p) != null) {
      buf.release();
      return;
    }
    if (waitWhenCache) {
      write(p, Handles.NONE);
    } else if (!writers.offer(Long.hashCode(key.getOffset()), p)) {
      // The reader's thread never evicts: eviction is the writers' work.
      long h = slabs.allocate(sizeClass);
      if (h != Handles.NONE) {
        write(p, h);
      } else {
        fullQueueDrops.increment();
        stats.failInsert();
        pending.remove(key, p);
        p.block.release();
      }
    }
  }

  /**
   * Writes a pending block into {@code slot} (or a slot allocated here, evicting as needed, if
   * NONE) and publishes it; on any failure drops it. Frees the slot if it is not published. A
   * slot whose slab started draining while the block was written is refused publication
   * ({@link BlockStore#publish}); the block is then written again into another slot, taken the
   * same way (from free space only if the caller gave the first slot), at most
   * {@value #PUBLISH_ATTEMPTS} times.
   */
  private void write(Pending p, long slot) {
    boolean mayEvict = slot == Handles.NONE;
    long h = slot;
    if (!enterEngine()) {
      freeUnpublished(h);
      p.block.release();
      return;
    }
    try {
      for (int attempt = 1; ; attempt++) {
        if (pending.get(p.key) != p || faults.disabled()) {
          freeUnpublished(h);
          return;
        }
        int length = p.block.getSerializedLength();
        if (h == Handles.NONE) {
          int sizeClass = config.classes.classOf(length);
          h = mayEvict ? store.allocate(sizeClass) : slabs.allocate(sizeClass);
        }
        if (h == Handles.NONE) {
          stats.failInsert();
          pending.remove(p.key, p);
          return;
        }
        int checksum;
        try {
          checksum = codec.write(p.block, slabs.offsetOf(h), length);
        } catch (IOException e) {
          slabs.free(h);
          pending.remove(p.key, p);
          if (faults.error("write of " + p.key, e)) {
            disable();
          }
          return;
        }
        faults.success();
        boolean data = !isMetaBlock(p.block.getBlockType());
        BlockType type = p.block.getBlockType();
        boolean published = store.publish(p.key, h, length, checksum,
            BlockCodec.flags(p.inMemory || !data, data, true),
            p.block.getDeserializer().getDeserializerIdentifier(),
            type == null ? 0xff : type.ordinal(), () -> pending.remove(p.key, p));
        if (published) {
          return;
        }
        slabs.free(h);
        h = Handles.NONE;
        if (attempt == PUBLISH_ATTEMPTS) {
          if (pending.remove(p.key, p)) {
            stats.failInsert();
          }
          return;
        }
        // Still pending: the slab drains (or the block went and came back), so write it again.
      }
    } finally {
      p.block.release();
      exitEngine();
    }
  }

  private void freeUnpublished(long h) {
    if (h != Handles.NONE) {
      slabs.free(h);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Eviction
  // ---------------------------------------------------------------------------------------------

  /**
   * Whether the block is written to the L2 (a block still queued is not), as HBase's
   * BucketCache answers. HBase's prefetch asks it; {@code getBlockSize} stays unanswered, so
   * prefetch still reads such a block rather than skip it by a size the L2 would have to keep.
   */
  @Override
  public Optional<Boolean> isAlreadyCached(BlockCacheKey key) {
    return Optional.of(store.contains(key));
  }

  /**
   * Whether {@code key} is cached (queued or written) with the in-memory priority: an index or
   * bloom block, or a block of an {@code IN_MEMORY} family. A tier above asks it to keep the
   * priority when it takes the block back.
   */
  public boolean isInMemory(BlockCacheKey key) {
    Pending p = pending.get(key);
    return p != null ? p.inMemory : store.isInMemory(key);
  }

  @Override
  public boolean evictBlock(BlockCacheKey key) {
    return store.evict(key, () -> pending.remove(key) != null);
  }

  /** Evicts every block of {@code hfileName}, queued or written; O(blocks of that file). */
  @Override
  public int evictBlocksByHfileName(String hfileName) {
    int n = 0;
    for (BlockCacheKey key : pending.keySet()) {
      if (key.getHfileName().equals(hfileName) && evictBlock(key)) {
        n++;
      }
    }
    for (long offset : store.files.offsets(hfileName)) {
      if (evictBlock(new BlockCacheKey(hfileName, offset))) {
        n++;
      }
    }
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // Life cycle
  // ---------------------------------------------------------------------------------------------

  /** Blocks until queued writes are applied (up to {@code timeoutMs}); true if they were. */
  public boolean flush(long timeoutMs) {
    try {
      return writers.awaitIdle(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Writes the index checkpoint now if anything changed since the last one (persistent engines
   * with {@code hbase.bucketcache.persistent.path} only); returns whether one was written.
   */
  public boolean checkpoint() throws IOException {
    if (checkpoints == null || !enterEngine()) {
      return false;
    }
    try {
      return checkpoints.writeIfChanged();
    } finally {
      exitEngine();
    }
  }

  /** Stops the writers and drops the blocks still queued (disable and shutdown). */
  private void disable() {
    for (Pending p : writers.stop()) {
      pending.remove(p.key, p);
      p.block.release();
    }
  }

  /**
   * Stops the writers, writes a last checkpoint (persistent engines), and drops every block;
   * safe to call more than once. Engine memory is released once no reader holds a block from it.
   */
  @Override
  public void shutdown() {
    if (checkpoints != null) {
      checkpoints.stop();
    }
    if (closed.get()) {
      return;
    }
    if (checkpoints != null) {
      flush(10_000);
      checkpoints.writeQuietly();
    }
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // Each pending block is either in a queue (returned here, released here) or being written
    // by a caller thread (which releases it when it sees the tier closed).
    disable();
    pending.clear();
    store.clear();
    if (inEngine.get() == 0) {
      closeEngine();
    }
    LOG.info("{} shut down: {}", name, stats);
  }

  private void closeEngine() {
    if (inEngine.get() == 0 && engineClosed.compareAndSet(false, true)) {
      try {
        engine.close();
      } catch (IOException e) {
        LOG.warn("{}: closing {} failed", name, engine.describe(), e);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sizes, stats, iteration
  // ---------------------------------------------------------------------------------------------

  @Override
  public TierStats getStats() {
    return stats;
  }

  /** Bytes of cached blocks, as HBase's BucketCache reports {@code size()}. */
  @Override
  public long size() {
    return store.bytes();
  }

  @Override
  public long getMaxSize() {
    return config.capacity;
  }

  /** Capacity not in used slots (slot rounding makes this less than max - current). */
  @Override
  public long getFreeSize() {
    return config.capacity - slabs.usedSlotBytes();
  }

  @Override
  public long getCurrentSize() {
    return store.bytes();
  }

  @Override
  public long getCurrentDataSize() {
    return store.dataBytes();
  }

  @Override
  public long getBlockCount() {
    return store.blocks();
  }

  @Override
  public long getDataBlockCount() {
    return store.dataBlocks();
  }

  /** Per-size-class slab use and waste. */
  public Occupancy occupancy() {
    return slabs.occupancy();
  }

  /** Blocks dropped because their checksum failed. */
  public long checksumFailures() {
    return checksumFailures.sum();
  }

  /**
   * Blocks dropped because their writer's queue was full and no free slot or slab was left
   * (also counted as failed inserts).
   */
  public long fullQueueDrops() {
    return fullQueueDrops.sum();
  }

  /** I/O errors seen by the engine. */
  public long ioErrors() {
    return faults.errors();
  }

  /** Whether I/O errors have disabled this tier. */
  public boolean isDisabled() {
    return faults.disabled();
  }

  /** A snapshot of the written blocks, for the RegionServer web UI (O(cache)). */
  @Override
  public Iterator<CachedBlock> iterator() {
    return store.snapshot().iterator();
  }

  @Override
  public BlockCache[] getBlockCaches() {
    return null;
  }

  @Override
  public void checkInvariants() {
    store.checkInvariants(config.capacity);
  }

  @Override
  public String toString() {
    return name + "[" + config + ", blocks=" + store.blocks() + "]";
  }
}
