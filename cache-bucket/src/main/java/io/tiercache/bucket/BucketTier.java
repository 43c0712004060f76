/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.admit.Admission;
import io.tiercache.bucket.alloc.Occupancy;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.Engines;
import io.tiercache.bucket.engine.ReadTimer;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.persist.Checkpoint;
import io.tiercache.bucket.persist.Checkpoints;
import io.tiercache.bucket.persist.Restore;
import io.tiercache.bucket.write.Pending;
import io.tiercache.bucket.write.WriteBehind;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.ConfigReport;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.HeapSize;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileInfo;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hbase.thirdparty.com.google.gson.annotations.JsonAdapter;
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
 * The class is the HBase 2.6 {@code BlockCache} surface, each method with its containment; the
 * work is done by its parts, one concept each:
 * <ul>
 *   <li>{@link Inserts}: admission ({@link Admission}, {@code tiercache.l2.admission}: a data
 *       block that would displace a block read more often is rejected on the caller's thread),
 *       the pending map ({@link WriteBehind}: a pending block is already a hit), and the write
 *       and publication of a slot, on the caller's thread ({@code tiercache.l2.write.mode=inline},
 *       the default) or a writer thread ({@code queued}).</li>
 *   <li>{@link Reads}: a lookup pins the slot before its file's index table may change;
 *       memory engines wrap
 *       the slot's memory without copying (the block's last {@code release()} unpins it), file
 *       engines copy into a buffer from the {@link ByteBuffAllocator} and unpin at once. A slot
 *       not verified since it was restored is verified before it is served.</li>
 *   <li>{@link BlockStore}: the allocator ({@link SlabAllocator}: size classes, CLOCK, slab
 *       drains) and the {@link BlockIndex} (per file: an index table, the file's id and
 *       residency) kept in agreement under a striped key lock; removing a block takes it out of the index first, and the slot is
 *       freed at once if unpinned, else by its last reader.</li>
 *   <li>{@code persist/}: with {@code hbase.bucketcache.persistent.path} and a persistent engine,
 *       {@link Checkpoints} writes the index periodically and at shutdown; at start it is restored
 *       in the background ({@link Restore}): the tier answers at once, inserts wait for the
 *       restore's end, evictions made meanwhile are replayed. An engine with its own
 *       {@link DurableIndex} ({@code pmem:}) is restored from it the same way.</li>
 *   <li>{@link EngineGuard}: the engine closes only when no read or write uses it.</li>
 * </ul>
 *
 * <p><b>Containment.</b> Every {@code BlockCache} method catches {@code Throwable} at its
 * boundary: a failure is a miss or a dropped block, never an exception in HBase's read path; an
 * {@link Error} disables the tier ({@link FaultTracker#unexpected}).
 *
 * <p><b>Size.</b> About 770 lines, over the style guide's 600: HBase 2.6's {@code BlockCache}
 * and {@code HeapSize} (about 45 methods) plus the L2's own counters that metrics and tests read,
 * each a short delegation with its contract in Javadoc; the work is in the classes above. Moving
 * the counters out would change a public API that cache-combined, cache-pmem's tests and the
 * metrics read (issue 15 left it as it is).
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>A block is returned only with a reference taken for the caller; its memory is not reused
 *       until that reference is released.</li>
 *   <li>After writes settle, index size = {@link #getBlockCount()}, and every
 *       indexed slot is allocated, not evicted, and describes its key.</li>
 *   <li>The engine is closed only once shut down and no reader holds a pinned slot and no write
 *       is in progress ({@link EngineGuard}).</li>
 * </ul>
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method. Lock order: key stripe, then the file's index entry and
 * table, then allocator.
 */
// The web UI's JSON view shows a metrics snapshot (TierJson), not this class's fields.
@JsonAdapter(BucketTierMetrics.Json.class)
public final class BucketTier implements CacheTier, HeapSize {
  private static final Logger LOG = LoggerFactory.getLogger(BucketTier.class);

  // Package-private: the read and write paths (Reads, Inserts) take their parts from here.
  final BucketConfig config;
  final String name;
  private final Engine engine;
  final BlockStore store;
  final SlabAllocator slabs;
  private final BlockIndex index;
  final TierStats stats;
  final BlockCodec codec;
  final FaultTracker faults;
  final Admission admission;
  final EngineGuard guard = new EngineGuard(this::closeEngine);
  private final Inserts inserts;
  final WriteBehind writeBehind;
  private final Reads reads;
  private final FileEvictions evictions;
  final TierPersistence persistence;
  final Restore restore;
  private final FileResidency residency;
  final ColdFiles coldFiles;
  private final RuntimeSettings settings;
  private final boolean persistent;
  /** Set when the RegionServer stops gracefully: region closes keep a persistent L2's blocks. */
  private volatile boolean keepFilesOnClose;

  /**
   * Builds an L2 from HBase configuration keys.
   *
   * @throws io.tiercache.core.config.SettingException naming the key of an invalid value, or
   *     the engine that cannot be opened
   */
  public BucketTier(Configuration conf) {
    this(BucketConfig.from(ConfigReport.logOnce(conf)), "L2", ByteBuffAllocator.HEAP);
    settings.started(conf);
    LOG.info("TierCache {} started: {}; {}", name,
        CacheSettings.describe(conf, BucketConfig.SETTINGS), config);
  }

  BucketTier(BucketConfig config, String name, ByteBuffAllocator buffers) {
    this(config, name, buffers, BucketTier::openEngine, Restore.threadPerRestore(name));
  }

  static Engine openEngine(BucketConfig c) {
    return Engines.open(c.ioEngine, c.capacity, c.slabSize, c.slotSizes(), c.engineOptions);
  }

  /**
   * As above, with the engine opened by {@code opener} and the background restore run by
   * {@code restorer} (tests pace it).
   */
  BucketTier(BucketConfig config, String name, ByteBuffAllocator buffers,
      Function<BucketConfig, Engine> opener, Executor restorer) {
    this.config = config;
    this.name = name;
    this.admission = new Admission(config.admission, config.expectedBlocks());
    this.stats = new TierStats(name, config.statsPeriods, config.statsPeriodMinutes);
    if (config.persistentPath != null) {
      Checkpoints.checkPath(config.persistentPath); // before an engine reserves its space
    }
    // All direct memory but the engine's (the slot records) is counted here, before the engine
    // opens, so nothing is left open when it is not there; it is taken slab by slab
    // (allocateRecordsInBackground), so that building the tier costs the same at any size.
    DirectBudget.check(config);
    try {
      this.slabs = new SlabAllocator(config.classes, config.capacity, config.slabSize);
      slabs.setHitPercent(config.rebalanceHitPercent);
      slabs.setProtectedPercent(config.protectedPercent);
      this.index = new BlockIndex(
          SlabAllocator.maxSlotsFor(config.capacity, config.slabSize, config.classes),
          config.classes.slotsPerSlab(0), BlockStore.slots(slabs));
    } catch (OutOfMemoryError e) {
      throw DirectBudget.refused(config, e);
    } catch (IllegalArgumentException e) { // a geometry the index cannot number
      throw new SettingException(CacheSettings.L2_SIZE.key(), e.getMessage());
    }
    this.engine = opener.apply(config);
    try {
      DurableIndex durable = engine.durableIndex();
      this.store = new BlockStore(slabs, index, stats, durable);
      this.residency = new FileResidency(name, store.files, this::unexpected);
      this.coldFiles = new ColdFiles(name, slabs, store.files,
          file -> evictFile(file, 0, Long.MAX_VALUE));
      this.persistent = engine.isPersistent()
          && (durable != null || config.persistentPath != null);
      this.codec = new BlockCodec(engine, buffers, persistent);
      this.faults = new FaultTracker(name, config.errorsToleratedMs, System::nanoTime);
      Checkpoints checkpoints = Checkpoints.open(name, config.persistentPath,
          config.persistIntervalMs, config.journalCompactPercent, engine,
          new Checkpoint.Geometry(engine.describe(), config.capacity, config.slabSize,
              config.slotSizes()), store, this::checkpoint);
      if (checkpoints != null) {
        store.journal(checkpoints.journal());
      }
      this.persistence = new TierPersistence(this, engine, checkpoints);
      this.restore = persistence.restore;
    } catch (RuntimeException | Error e) {
      try {
        engine.close(); // nothing else holds it yet: its files and locks are released now
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    this.inserts = new Inserts(this); // starts the writer threads
    this.writeBehind = inserts.writeBehind;
    this.reads = new Reads(this, writeBehind);
    this.evictions = new FileEvictions(this, writeBehind, residency);
    this.settings = new RuntimeSettings(name, faults, admission, persistence, inserts, slabs);
    persistence.start(restorer);
    allocateRecordsInBackground();
  }

  /**
   * Takes the slot records' direct memory (counted by {@link DirectBudget} above) on a daemon
   * thread, slab by slab, so that building the tier costs the same at any size; a slab used
   * before gets its records at that first use.
   */
  private void allocateRecordsInBackground() {
    Thread t = new Thread(() -> {
      int failed = slabs.allocateRecords(guard::isClosed);
      if (failed > 0) {
        LOG.error("TierCache {}: the slot records of {} slabs could not be allocated (direct "
            + "memory taken since start-up); each is retried when first used, and the L2 holds "
            + "less until then; raise -XX:MaxDirectMemorySize (HBASE_OFFHEAPSIZE)", name, failed);
      }
    }, "tiercache-" + name + "-records");
    t.setDaemon(true);
    t.start();
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
    try {
      return reads.lookup(key, caching, repeat, updateCacheMetrics);
    } catch (Throwable t) { // nothing leaves a BlockCache method: a failure is a miss
      unexpected("getBlock of " + key, t);
      return null;
    }
  }

  /** Records a failure caught at the tier's boundary; an Error disables the tier. */
  void unexpected(String what, Throwable t) {
    try {
      if (faults.unexpected(what, t)) {
        disable();
      }
    } catch (Throwable again) { // logging or stopping failed too: the tier is already off
      // nothing more can be done here without risking the caller
    }
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
   * size are refused and counted as failed inserts. With {@code waitWhenCache}, or in
   * {@code tiercache.l2.write.mode=inline} (the default), the calling thread writes the block
   * itself before returning, evicting if it must. In {@code queued} mode the block is queued for
   * a writer thread; when the writer's queue is full the caller writes the block itself into free
   * space (a free slot of its class or a free slab) and never evicts; with no free space the block
   * is dropped, counted as a failed insert and in {@link #fullQueueDrops()}.
   */
  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache) {
    try {
      inserts.insert(key, buf, inMemory, waitWhenCache, false);
    } catch (Throwable t) { // nothing leaves a BlockCache method: the block is dropped
      unexpected("cacheBlock of " + key, t);
    }
  }

  /**
   * Caches a block an upper tier chose to keep: a victim of the combined cache's L1 in exclusive
   * mode, which the L1's own frequency filter already admitted. The L2's admission filter is not
   * asked (it sees only the L1's misses, so it would rate a block that lived in the L1 as cold);
   * everything else is {@link #cacheBlock(BlockCacheKey, Cacheable, boolean, boolean)} without
   * {@code waitWhenCache}.
   */
  public void cacheDemoted(BlockCacheKey key, Cacheable buf, boolean inMemory) {
    try {
      inserts.insert(key, buf, inMemory, false, true);
    } catch (Throwable t) { // nothing leaves a BlockCache method: the block is dropped
      unexpected("cacheBlock of " + key, t);
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
    return reads.isAlreadyCached(key); // contained there
  }

  /**
   * The on-disk size with header of a written block (or of the parent's block, for a split
   * daughter's reference), read from the block's header: HBase's prefetch skips a block the
   * cache already holds by this size, so after a warm restart it reads nothing the L2 restored.
   * Empty for a block not written (a queued one included, as HBase's BucketCache answers) or one
   * whose checksum fails (then dropped).
   */
  @Override
  public Optional<Integer> getBlockSize(BlockCacheKey key) {
    return reads.blockSize(key); // contained there
  }

  /**
   * Whether the block could be written without evicting (a free slot of its size class or a free
   * slab): HBase's prefetch stops a file when this says no (HBASE-28176), instead of evicting
   * the working set to make room.
   */
  @Override
  public Optional<Boolean> blockFitsIntoTheCache(HFileBlock block) {
    try {
      int c = config.classes.classOf(block.getSerializedLength());
      return Optional.of(
          c >= 0 && !guard.isClosed() && !faults.disabled() && slabs.hasFreeSpace(c));
    } catch (Throwable t) {
      unexpected("blockFitsIntoTheCache", t);
      return Optional.of(false);
    }
  }

  @Override
  public void notifyFileCachingCompleted(Path file, int totalBlockCount, int dataBlockCount,
      long size) {
    residency.completed(file, dataBlockCount, size, () -> flush(10_000)); // contained there
  }

  /** File name to (region, size) of the files prefetch cached completely and still held. */
  @Override
  public Optional<Map<String, Pair<String, Long>>> getFullyCachedFiles() {
    return Optional.of(residency.fullyCached());
  }

  /**
   * Number of {@code file}'s data blocks written to the L2 (queued ones are not); the combined
   * cache adds the L1's in {@code exclusive} mode.
   */
  public int dataBlocksOf(String file) {
    return store.files.dataBlocksOf(file);
  }

  /** Bytes of written blocks per region (encoded name), as HBase's BucketCache reports. */
  @Override
  public Optional<Map<String, Long>> getRegionCachedInfo() {
    return Optional.of(residency.regionBytes());
  }

  @Override
  public Optional<Boolean> shouldCacheFile(HFileInfo info, Configuration conf) {
    return residency.shouldCacheFile(info, conf); // contained there
  }

  @Override
  public Optional<Boolean> shouldCacheBlock(BlockCacheKey key, long maxTimestamp,
      Configuration conf) {
    return residency.shouldCacheBlock(key, maxTimestamp, conf); // contained there
  }

  /**
   * Whether {@code key} is cached (queued or written) with the in-memory priority: an index or
   * bloom block, or a block of an {@code IN_MEMORY} family. A tier above asks it to keep the
   * priority when it takes the block back.
   */
  public boolean isInMemory(BlockCacheKey key) {
    Pending p = writeBehind.get(key);
    return p != null ? p.inMemory : store.isInMemory(key);
  }

  @Override
  public boolean evictBlock(BlockCacheKey key) {
    return evictions.evictBlock(key); // contained there
  }

  /** Evicts every block of {@code hfileName}, queued or written; O(blocks of that file). */
  @Override
  public int evictBlocksByHfileName(String hfileName) {
    return evictBlocksRangeByHfileName(hfileName, 0, Long.MAX_VALUE);
  }

  /**
   * Evicts the blocks of {@code hfileName} at offsets {@code [initOffset, endOffset]}, queued or
   * written; O(blocks of that file). HBase calls it when a split or merge leaves only part of a
   * parent file alive (HBASE-28596).
   */
  @Override
  public int evictBlocksRangeByHfileName(String hfileName, long initOffset, long endOffset) {
    if (keepFilesOnClose) {
      return 0; // the RegionServer is stopping: the next start serves these blocks
    }
    return evictions.evictRange(hfileName, initOffset, endOffset); // contained there
  }

  /** Evicts blocks of a file without recording them for the restore (its replay, cold files). */
  int evictFile(String hfileName, long initOffset, long endOffset) {
    return evictions.evictFile(hfileName, initOffset, endOffset);
  }

  // ---------------------------------------------------------------------------------------------
  // Life cycle
  // ---------------------------------------------------------------------------------------------

  /**
   * Whether the blocks survive a restart: a persistent engine with a checkpoint file or its own
   * durable index ({@code pmem:}).
   */
  public boolean isPersistent() {
    return persistent;
  }

  /**
   * From now on, evicting a whole file ({@code evictBlocksByHfileName}, which HBase calls when it
   * closes a region with {@code hbase.rs.evictblocksonclose}) keeps its blocks, if this L2 is
   * persistent: called when the RegionServer stops gracefully, as HBase keeps a persistent
   * BucketCache's blocks then ({@code HRegion#close} with {@code isGracefulStop}), so the next
   * start is warm. Returns whether it took effect.
   */
  public boolean keepFilesOnClose() {
    if (persistent && !keepFilesOnClose) {
      keepFilesOnClose = true;
      LOG.info("{}: the RegionServer is stopping; region closes keep this persistent L2's "
          + "blocks for the next start", name);
    }
    return persistent;
  }

  /**
   * Re-reads the settings that can change at run time ({@code
   * hbase.bucketcache.persist.intervalinmillis}, {@code
   * hbase.bucketcache.ioengine.errors.tolerated.duration}, {@code tiercache.l2.admission} and
   * {@code tiercache.l2.write.mode}: the next insert goes by the new mode) and logs what
   * changed; a bad value is rejected with its start-up message and nothing changes. A changed
   * engine, size, bucket sizes, writers, checkpoint path or slab size is logged as taking effect
   * at restart.
   */
  @Override
  public void onConfigurationChange(Configuration conf) {
    try {
      settings.apply(conf);
    } catch (Throwable t) {
      unexpected("onConfigurationChange", t);
    }
  }

  /**
   * Whether the tier serves: not shut down, not disabled by faults. (HBase 3.0's
   * {@code BlockCache#isCacheEnabled}; declared without {@code @Override} since 2.6 lacks it.)
   * A tier still restoring is enabled: it serves what it has restored so far.
   */
  public boolean isCacheEnabled() {
    return !guard.isClosed() && !faults.disabled();
  }

  /**
   * Waits up to {@code timeoutMs} milliseconds for the background restore to end; returns
   * whether the tier is then restored and enabled. (HBase 3.0's
   * {@code BlockCache#waitForCacheInitialization}, declared without {@code @Override}.)
   */
  public boolean waitForCacheInitialization(long timeoutMs) {
    try {
      return restore.await(timeoutMs) && isCacheEnabled();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Whether the index restore at start has ended (at once when there was nothing to restore). */
  public boolean isRestored() {
    return restore.finished();
  }

  /** Inserts dropped because they came while the index was being restored. */
  public long insertsDroppedWhileRestoring() {
    return restore.droppedInserts();
  }

  /** Blocks until queued writes are applied (up to {@code timeoutMs}); true if they were. */
  public boolean flush(long timeoutMs) {
    try {
      return writeBehind.awaitIdle(timeoutMs);
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
    return persistence.checkpoint();
  }

  /** Stops the writers and drops the blocks still queued (disable and shutdown). */
  void disable() {
    writeBehind.stop();
  }

  /**
   * Stops the writers, writes a last checkpoint (persistent engines), and drops every block;
   * safe to call more than once. Engine memory is released once no reader holds a block from it.
   */
  @Override
  public void shutdown() {
    try {
      stop();
    } catch (Throwable t) {
      LOG.error("{}: shutdown failed", name, t);
    }
  }

  private void stop() {
    persistence.stopCheckpoints();
    if (guard.isClosed()) {
      return;
    }
    // When shutdown returns the engine and its lock are released: a running restore ends first.
    persistence.beforeClose(() -> flush(10_000));
    // A use of the engine held until the blocks are dropped: once the tier is closed, the last
    // reader to release a block closes the engine, which must not happen before the store is
    // cleared (a pmem: L2's index lives in the pool; an eviction racing this shutdown touched it
    // after the pool closed, and its block stayed counted).
    boolean using = guard.enter();
    if (!guard.close()) {
      if (using) {
        guard.exit();
      }
      return;
    }
    try {
      // Each pending block is either in a queue (returned here, released here) or being written
      // by a caller thread (which releases it when it sees the tier closed).
      disable();
      writeBehind.clear();
      store.clear();
    } finally {
      if (using) {
        guard.exit(); // closes the engine unless a reader still holds a block
      }
    }
    guard.closeEngineIfIdle();
    stats.stop();
    LOG.info("{} shut down: {}", name, stats);
  }

  /** Closes the engine and the checkpoint's lock (once, by the {@link EngineGuard}). */
  private void closeEngine() {
    try {
      engine.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("{}: closing {} failed", name, engine.describe(), e);
    }
    persistence.close();
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

  /**
   * The L2's own footprint on the Java heap (HBase's {@code HeapSize}, which
   * {@code CombinedBlockCache#heapSize} adds to the L1's): the index (its per-file tables,
   * 5.3-7.1 bytes per written block, and about 150 bytes per file), the admission filter (its
   * sketch, 16 bytes, and its memory of decisions, 4 bytes, per block of
   * {@code hbase.blockcache.minblocksize} the capacity holds, each rounded up to a power of two)
   * plus the blocks still queued for a writer. The blocks
   * themselves and the slot records are off heap and not counted. O(files + queue).
   */
  @Override
  public long heapSize() {
    return store.index.heapBytes() + admission.heapBytes() + writeBehind.heapBytes();
  }

  /** Blocks evicted first because data tiering called their file cold. */
  public long coldFileEvictions() {
    return coldFiles.evicted();
  }

  /** Where cold files come from (HBase's {@code DataTieringManager} unless set; tests set one). */
  void coldFilesSource(java.util.function.Supplier<java.util.Set<String>> source) {
    coldFiles.source(source);
  }

  /** Per-size-class slab use and waste. */
  public Occupancy occupancy() {
    return slabs.occupancy();
  }

  /** The write mode in force ({@code tiercache.l2.write.mode}): {@code inline} or {@code queued}.
   */
  public String writeMode() {
    return inserts.writeMode();
  }

  /** The admission filter (mode and sketch), for stats and tests. */
  public Admission admission() {
    return admission;
  }

  /** Blocks dropped because their checksum failed. */
  public long checksumFailures() {
    return reads.checksumFailures();
  }

  /**
   * Blocks dropped because their writer's queue was full and no free slot or slab was left
   * (also counted as failed inserts).
   */
  public long fullQueueDrops() {
    return inserts.fullQueueDrops();
  }

  /** I/O errors seen by the engine. */
  public long ioErrors() {
    return faults.errors();
  }

  /** Whether I/O errors, or an {@link Error} caught at the tier's boundary, disabled this tier. */
  public boolean isDisabled() {
    return faults.disabled();
  }

  /**
   * Failures other than I/O errors caught at the tier's boundary (each dropped a block or
   * answered a miss; an {@link Error} also disabled the tier).
   */
  public long unexpectedFailures() {
    return faults.unexpected() + writeBehind.failures();
  }

  /** The engine, as the start-up line names it (e.g. {@code file:/data/l2.cache}). */
  public String engineDescription() {
    return engine.describe();
  }

  /** The engine's read timer ({@code file:}, {@code files:}), or null if it times nothing. */
  ReadTimer engineReadTimer() {
    return engine.readTimer();
  }

  /**
   * Persistence's writes this run: {@code {bytes written, checkpoints written}}; both 0 without
   * checkpoints ({@code pmem:} keeps its index in the pool and writes no checkpoint).
   */
  public long[] persistWrites() {
    return persistence.persistWrites();
  }

  /** Slots CLOCK examined to find eviction victims, since the tier was built. */
  public long evictionSlotsExamined() {
    return slabs.clockSlotsExamined();
  }

  /**
   * The written blocks, for the RegionServer web UI: made one at a time, so walking the first N
   * costs O(N) heap, not O(cache) (see {@code BlockStore#iterator}).
   */
  @Override
  public Iterator<CachedBlock> iterator() {
    try {
      return store.iterator();
    } catch (Throwable t) {
      unexpected("iterator", t);
      return java.util.Collections.emptyIterator();
    }
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
