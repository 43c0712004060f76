/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.admit.Admission;
import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.Occupancy;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.Engines;
import io.tiercache.bucket.engine.ReadTimer;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.write.Writers;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.ConfigReport;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.config.Sizes;
import io.tiercache.core.file.Keys;
import io.tiercache.core.log.LogLimit;
import io.tiercache.core.ref.RefCounts;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.HeapSize;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockCacheUtil;
import org.apache.hadoop.hbase.io.hfile.BlockType;
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
 * <b>Admission.</b> Before anything else, {@code cacheBlock} asks the admission filter
 * ({@link Admission}, {@code tiercache.l2.admission}) on the caller's thread whether the block
 * is worth writing: in {@code tinylfu} mode a data block that would displace a block read more
 * often is rejected (counted in {@link TierStats#admissionRejected()}) before it is retained,
 * copied or checksummed. See {@code admits} for the rules.
 *
 * <p><b>Write path.</b> {@code cacheBlock} retains the block, records it as pending (a pending
 * block is already a hit) and queues it for a writer thread ({@link Writers}). A writer allocates
 * a slot of the block's size class ({@link SlabAllocator}, which evicts by CLOCK or moves a cold
 * slab when needed), serializes the block into the engine (in place for memory engines) with a
 * CRC32C, fills the slot record, then publishes the slot in the {@link BlockIndex} and the
 * {@link io.tiercache.core.file.FileRegistry}. If the writer's queue is full the caller writes the block itself, but only
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
 * {@link Checkpoints} writes the index periodically and at shutdown; at start it is restored in
 * the background ({@link Restore}): the tier answers at once, inserts wait for the restore's end,
 * evictions made meanwhile are replayed.
 *
 * <p><b>Durable index.</b> An engine that keeps its own {@link DurableIndex} ({@code pmem:}) is
 * restored from it in the same way and told of every publication and removal
 * ({@link BlockStore}); no checkpoint file is written for it.
 *
 * <p><b>Containment.</b> Every {@code BlockCache} method catches {@code Throwable} at its
 * boundary: a failure is a miss or a dropped block, never an exception in HBase's read path; an
 * {@link Error} disables the tier ({@link FaultTracker#unexpected}).
 *
 * <p><b>Size.</b> This class is over the style guide's 600 lines: it is the whole HBase 2.6
 * {@code BlockCache} surface (about 40 methods, each with its containment) over the read and
 * write paths. The write path (pending map, writer queues, write and publish) is to move to
 * {@code write/} when issue 15 splits cache-bucket into its concept packages, together with the
 * per-block metadata rework it shares; splitting it before then would move the same code twice.
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
// The web UI's JSON view shows a metrics snapshot (TierJson), not this class's fields.
@JsonAdapter(BucketTierMetrics.Json.class)
public final class BucketTier implements CacheTier, HeapSize {
  private static final Logger LOG = LoggerFactory.getLogger(BucketTier.class);

  /** Slots a block is written to before it is dropped because each one's slab drained. */
  private static final int PUBLISH_ATTEMPTS = 3;

  private final BucketConfig config;
  private final String name;
  private final Engine engine;
  private final BlockStore store;
  private final SlabAllocator slabs;
  private final BlockIndex index;
  private final TierStats stats;
  private final BlockCodec codec;
  private final FaultTracker faults;
  private final Admission admission;
  private final ConcurrentHashMap<BlockCacheKey, Pending> pending = new ConcurrentHashMap<>();
  private final Writers<Pending> writers;
  private final Checkpoints checkpoints; // null unless a checkpoint file is configured
  private final Restore restore;
  private final FileResidency residency;
  private final ColdFiles coldFiles;
  /** The configuration the current settings were read from (empty for a tier built in code). */
  private volatile Configuration applied = new Configuration(false);
  private final boolean persistent;
  /** Set when the RegionServer stops gracefully: its region closes keep a persistent L2's blocks. */
  private volatile boolean keepFilesOnClose;
  /** Pinned reads plus writes in progress: the engine closes only when this is zero. */
  private final AtomicLong inEngine = new AtomicLong();
  private final LongAdder checksumFailures = new LongAdder();
  private final LongAdder fullQueueDrops = new LongAdder();
  private final LogLimit checksumLog = new LogLimit(LogLimit.MINUTE);
  private final LogLimit refusedLog = new LogLimit(LogLimit.MINUTE);
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean engineClosed = new AtomicBoolean();

  /**
   * Builds an L2 from HBase configuration keys.
   *
   * @throws io.tiercache.core.config.SettingException naming the key of an invalid value, or
   *     the engine that cannot be opened
   */
  public BucketTier(Configuration conf) {
    this(BucketConfig.from(ConfigReport.logOnce(conf)), "L2", ByteBuffAllocator.HEAP);
    this.applied = new Configuration(conf);
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
      Persistence.checkPath(config.persistentPath); // before an engine reserves its space
    }
    // All direct memory but the engine's is taken here, before the engine opens, so nothing
    // is left open when it is not there, and nothing later (cacheBlock) has to allocate it.
    DirectBudget.check(config.directBytes(), DirectBudget.available(),
        BucketConfig.isOffHeap(config.ioEngine)
            ? Sizes.format(config.capacity) + " of slabs and " + Sizes.format(config.metadataBytes())
                + " of index and slot records"
            : Sizes.format(config.metadataBytes()) + " of index and slot records for "
                + Sizes.format(config.capacity) + " of " + config.ioEngine);
    try {
      this.slabs = new SlabAllocator(config.classes, config.capacity, config.slabSize);
      this.index = new BlockIndex(
          SlabAllocator.maxSlotsFor(config.capacity, config.slabSize, config.classes));
    } catch (OutOfMemoryError e) {
      throw DirectBudget.refused(config, e);
    }
    this.engine = opener.apply(config);
    try {
      DurableIndex durable = engine.durableIndex();
      this.store = new BlockStore(slabs, index, stats, durable);
      this.residency = new FileResidency(name, store.files);
      this.coldFiles = new ColdFiles(name, slabs, store.files,
          file -> evictFile(file, 0, Long.MAX_VALUE));
      this.persistent = engine.isPersistent()
          && (durable != null || config.persistentPath != null);
      this.codec = new BlockCodec(engine, buffers, persistent);
      this.faults = new FaultTracker(name, config.errorsToleratedMs, System::nanoTime);
      this.checkpoints = Checkpoints.open(name, config, engine, slabs, store, this::checkpoint);
    } catch (RuntimeException | Error e) {
      try {
        engine.close(); // nothing else holds it yet: its files and locks are released now
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    this.writers = new Writers<>("tiercache-" + name, config.writerThreads, config.writerQueue,
        p -> write(p, Handles.NONE)); // writer threads may evict
    if ((engine.durableIndex() != null && engine.hasDurableRecords())
        || (checkpoints != null && checkpoints.exists())) {
      this.restore = new Restore(name); // off the start-up path: the tier answers at once
      restore.start(restorer, this::restoreIndex, this::replay, this::restored);
    } else {
      this.restore = Restore.none(name); // nothing to restore: a cold start, ready now
      if (checkpoints != null) {
        checkpoints.restore(); // finds no file: logs the cold start
        checkpoints.schedule();
      }
    }
  }

  /** The restore's work, on its thread: the index from the durable index or the checkpoint. */
  private void restoreIndex() {
    if (!enterEngine()) {
      return; // shut down before it began
    }
    try {
      DurableIndex durable = engine.durableIndex();
      if (durable != null) {
        Checkpoints.restoreDurable(name, durable, slabs, store);
      } else {
        checkpoints.restore();
      }
    } finally {
      exitEngine();
    }
  }

  /** Applies again an eviction made while the restore ran. */
  private void replay(Restore.Eviction e) {
    if (!closed.get()) {
      evictFile(e.file, e.from, e.to);
    }
  }

  /** After the restore: periodic checkpoints start. */
  private void restored() {
    if (checkpoints != null && !closed.get()) {
      checkpoints.schedule();
    }
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
      return lookup(key, caching, repeat, updateCacheMetrics);
    } catch (Throwable t) { // nothing leaves a BlockCache method: a failure is a miss
      unexpected("getBlock of " + key, t);
      return null;
    }
  }

  private Cacheable lookup(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    if (!repeat) {
      admission.lookedUp(key);
    }
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

  private Cacheable readWritten(BlockCacheKey requested) {
    if (!enterEngine()) {
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
      exitEngine();
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
    } catch (RuntimeException | Error e) { // codec.read has unpinned h
      unexpected("read of " + key, e);
      return null;
    }
  }

  /** Records a failure caught at the tier's boundary; an Error disables the tier. */
  private void unexpected(String what, Throwable t) {
    try {
      if (faults.unexpected(what, t)) {
        disable();
      }
    } catch (Throwable again) { // logging or stopping failed too: the tier is already off
      // nothing more can be done here without risking the caller
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
    try {
      insert(key, buf, inMemory, waitWhenCache, false);
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
      insert(key, buf, inMemory, false, true);
    } catch (Throwable t) { // nothing leaves a BlockCache method: the block is dropped
      unexpected("cacheBlock of " + key, t);
    }
  }

  private void insert(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache, boolean admitted) {
    if (closed.get() || faults.disabled()) {
      return;
    }
    if (restore.running()) {
      restore.droppedInsert(); // the restore claims the slots its records name
      return;
    }
    int sizeClass = config.classes.classOf(buf.getSerializedLength());
    if (sizeClass < 0) {
      stats.failInsert();
      long quiet = refusedLog.admit(System.nanoTime());
      if (quiet >= 0) {
        LOG.warn("{}: refused block {} of {} bytes, over the largest bucket size {} ({} more "
            + "since the last such line; at most one line a minute)", name, key,
            buf.getSerializedLength(), config.classes.maxSize(), quiet);
      }
      return;
    }
    if (pending.containsKey(key)
        || (store.contains(key) && !BlockCacheUtil.shouldReplaceExistingCacheBlock(this, key, buf))) {
      return;
    }
    // Decided here, on the caller's thread, before the block is retained, queued or copied: a
    // rejected block costs a sketch lookup and a look at the victim, nothing more.
    if (!admitted && !admits(key, buf, inMemory, waitWhenCache, sizeClass)) {
      stats.admissionReject();
      return;
    }
    stats.admit();
    Pending p = new Pending(key, buf.retain(), inMemory);
    if (pending.putIfAbsent(key, p) != null) {
      buf.release();
      return;
    }
    if (waitWhenCache) {
      write(p, Handles.NONE);
      return;
    }
    long h;
    try {
      if (writers.offer(Long.hashCode(key.getOffset()), p)) {
        return;
      }
      // The reader's thread never evicts: eviction is the writers' work.
      h = slabs.allocate(sizeClass);
    } catch (RuntimeException | Error e) { // not handed to anyone: drop it here
      pending.remove(key, p);
      p.block.release();
      throw e;
    }
    if (h != Handles.NONE) {
      write(p, h);
    } else {
      fullQueueDrops.increment();
      stats.failInsert();
      pending.remove(key, p);
      p.block.release();
    }
  }

  /**
   * The admission rules ({@code tiercache.l2.admission}, see {@link Admission}):
   * <ol>
   *   <li>{@code all} mode: every block is admitted.</li>
   *   <li>Index and bloom (meta) blocks, blocks of {@code IN_MEMORY} families and
   *       {@code waitWhenCache} inserts (prefetch, cache-on-write) are always admitted: the first
   *       two are read on nearly every get and small, CLOCK protects them once written; the
   *       last are inserts HBase asked to be waited for, and HBase's prefetch stops by itself
   *       when {@link #blockFitsIntoTheCache} says no.</li>
   *   <li>A data block whose size class can take it without evicting (a free slot or slab, or a
   *       class that holds no slab yet) is admitted.</li>
   *   <li>Otherwise its sketch estimate is compared with that of the block CLOCK would evict
   *       for it ({@link SlabAllocator#admissionVictim}): admitted if higher (or, warm and
   *       unlucky, at random: {@link Admission#admits}). A victim whose file name the registry
   *       cannot give in O(1), or no published victim at all, admits a candidate seen at least
   *       twice.</li>
   * </ol>
   * Every insert attempt is counted in the sketch first.
   */
  private boolean admits(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache, int sizeClass) {
    if (!admission.filtering()) {
      return true;
    }
    admission.inserting(key);
    if (inMemory || waitWhenCache || isMetaBlock(buf.getBlockType())) {
      return true;
    }
    long victim = slabs.admissionVictim(sizeClass);
    if (victim == SlabAllocator.NO_VICTIM) {
      return true;
    }
    int candidate = admission.frequency(key.getHfileName(), key.getOffset());
    String victimFile = victim == Handles.NONE ? null
        : store.files.nameIfIndexed(slabs.fileId(victim));
    if (victimFile == null) {
      return candidate >= 2;
    }
    return admission.admits(candidate,
        admission.frequency(victimFile, slabs.blockOffset(victim)));
  }

  /**
   * Writes a pending block into {@code slot} (or a slot allocated here, evicting as needed, if
   * NONE) and publishes it; on any failure drops it. Frees the slot if it is not published. A
   * slot whose slab started draining while the block was written is refused publication
   * ({@link BlockStore#publish}); the block is then written again into another slot, taken the
   * same way (from free space only if the caller gave the first slot), at most
   * {@value #PUBLISH_ATTEMPTS} times. Throws nothing: a failure other than an I/O error is
   * recorded ({@link #unexpected}), and an {@link Error} (e.g. a store into a mapped page the file
   * system could not back) disables the tier.
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
          if (mayEvict) {
            coldFiles.maybeSweep(sizeClass);
          }
          h = mayEvict ? store.allocate(sizeClass) : slabs.allocate(sizeClass);
        }
        if (h == Handles.NONE) {
          stats.failInsert();
          pending.remove(p.key, p);
          return;
        }
        boolean done = writeAndPublish(p, h, length);
        h = Handles.NONE; // published or freed: no longer this write's
        if (done) {
          return;
        }
        if (attempt == PUBLISH_ATTEMPTS) {
          if (pending.remove(p.key, p)) {
            stats.failInsert();
          }
          return;
        }
        // Still pending: the slab drains (or the block went and came back), so write it again.
      }
    } catch (RuntimeException | Error e) {
      pending.remove(p.key, p);
      if (h != Handles.NONE) {
        dropFailed(p.key, h);
      }
      stats.failInsert();
      unexpected("write of " + p.key, e);
    } finally {
      p.block.release();
      exitEngine();
    }
  }

  /**
   * Serializes the block into slot {@code h} and publishes it. Returns normally only once the
   * slot is published or freed: true when this write is over (published, or dropped after an I/O
   * error), false when the publication was refused and the slot freed (the caller may retry); a
   * throw leaves the slot to the caller ({@link #dropFailed}).
   */
  private boolean writeAndPublish(Pending p, long h, int length) {
    int checksum;
    try {
      checksum = codec.write(p.block, slabs.offsetOf(h), length);
    } catch (IOException e) {
      pending.remove(p.key, p);
      boolean disableNow = faults.error("write of " + p.key, e);
      slabs.free(h);
      if (disableNow) {
        disable();
      }
      return true;
    }
    faults.success();
    stats.wrote(length);
    boolean data = !isMetaBlock(p.block.getBlockType());
    BlockType type = p.block.getBlockType();
    boolean published = store.publish(p.key, h, length, checksum,
        BlockCodec.flags(p.inMemory || !data, data, true),
        p.block.getDeserializer().getDeserializerIdentifier(),
        type == null ? 0xff : type.ordinal(), () -> pending.remove(p.key, p));
    if (!published) {
      slabs.free(h);
    }
    return published;
  }

  /**
   * Takes the slot of a write that failed midway, published or not: out of the index if the
   * key maps to it, else freed.
   */
  private void dropFailed(BlockCacheKey key, long h) {
    try {
      if (!store.evict(key, h)) {
        slabs.free(h);
      }
    } catch (RuntimeException | Error e) {
      LOG.error("{}: slot {} of a failed write could not be freed", name, Handles.toString(h), e);
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
    try {
      if (store.contains(key)) {
        return Optional.of(true);
      }
      BlockCacheKey parent = Keys.referredKey(key);
      return Optional.of(parent != null && store.contains(parent));
    } catch (Throwable t) {
      unexpected("isAlreadyCached of " + key, t);
      return Optional.of(false);
    }
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
    try {
      int size = onDiskSize(key);
      if (size < 0) {
        BlockCacheKey parent = Keys.referredKey(key);
        size = parent == null ? -1 : onDiskSize(parent);
      }
      return size < 0 ? Optional.empty() : Optional.of(size);
    } catch (Throwable t) {
      unexpected("getBlockSize of " + key, t);
      return Optional.empty();
    }
  }

  private int onDiskSize(BlockCacheKey key) {
    if (closed.get() || faults.disabled() || !enterEngine()) {
      return -1;
    }
    long h = store.pin(key);
    if (h == Handles.NONE) {
      exitEngine();
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
        store.evict(key, h);
        return -1;
      }
      unpin(h);
      return size;
    } catch (IOException e) {
      unpin(h);
      if (faults.error("read of " + key, e)) {
        disable();
      }
      return -1;
    } catch (RuntimeException | Error e) {
      unpin(h);
      throw e;
    }
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
      return Optional.of(c >= 0 && !closed.get() && !faults.disabled() && slabs.hasFreeSpace(c));
    } catch (Throwable t) {
      unexpected("blockFitsIntoTheCache", t);
      return Optional.of(false);
    }
  }

  @Override
  public void notifyFileCachingCompleted(Path file, int totalBlockCount, int dataBlockCount,
      long size) {
    try {
      residency.completed(file, dataBlockCount, size, () -> flush(10_000));
    } catch (Throwable t) {
      unexpected("notifyFileCachingCompleted of " + file, t);
    }
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
    try {
      return residency.shouldCacheFile(info, conf);
    } catch (Throwable t) {
      unexpected("shouldCacheFile", t);
      return Optional.empty();
    }
  }

  @Override
  public Optional<Boolean> shouldCacheBlock(BlockCacheKey key, long maxTimestamp,
      Configuration conf) {
    try {
      return FileResidency.shouldCacheBlock(maxTimestamp, conf);
    } catch (Throwable t) {
      unexpected("shouldCacheBlock of " + key, t);
      return Optional.empty();
    }
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
    try {
      restore.evicting(key.getHfileName(), key.getOffset(), key.getOffset());
      return store.evict(key, () -> pending.remove(key) != null);
    } catch (Throwable t) {
      unexpected("evictBlock of " + key, t);
      return false;
    }
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
    try {
      residency.forget(hfileName);
      restore.evicting(hfileName, initOffset, endOffset);
      return evictFile(hfileName, initOffset, endOffset);
    } catch (Throwable t) {
      unexpected("evictBlocksByHfileName of " + hfileName, t);
      return 0;
    }
  }

  private int evictFile(String hfileName, long initOffset, long endOffset) {
    int n = 0;
    for (BlockCacheKey key : pending.keySet()) {
      if (key.getHfileName().equals(hfileName) && key.getOffset() >= initOffset
          && key.getOffset() <= endOffset && evictBlock(key)) {
        n++;
      }
    }
    for (long offset : store.files.offsets(hfileName)) {
      if (offset >= initOffset && offset <= endOffset
          && evictBlock(new BlockCacheKey(hfileName, offset))) {
        n++;
      }
    }
    return n;
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
   * hbase.bucketcache.ioengine.errors.tolerated.duration}, {@code tiercache.l2.admission}: the
   * next insert decides by the new mode) and logs what changed; a bad value is
   * rejected with its start-up message and nothing changes. A changed engine, size, bucket
   * sizes, writers, checkpoint path or slab size is logged as taking effect at restart.
   */
  @Override
  public void onConfigurationChange(Configuration conf) {
    try {
      int interval;
      int tolerated;
      String admissionMode;
      try {
        interval = CacheSettings.L2_PERSIST_INTERVAL_MS.get(conf);
        tolerated = CacheSettings.L2_ERRORS_TOLERATED_MS.get(conf);
        admissionMode = CacheSettings.L2_ADMISSION.get(conf);
      } catch (SettingException e) {
        LOG.error("{}: configuration change rejected, the current settings stay: {}", name,
            e.getMessage());
        return;
      }
      Configuration before = applied;
      for (String restart : CacheSettings.changes(before, conf, BucketConfig.START_ONLY)) {
        LOG.warn("{}: {} takes effect at restart", name, restart);
      }
      List<String> changed = CacheSettings.changes(before, conf, BucketConfig.RUNTIME);
      faults.setToleratedMs(tolerated);
      admission.setMode(admissionMode);
      if (checkpoints != null) {
        checkpoints.setInterval(interval);
      }
      applied = new Configuration(conf);
      if (!changed.isEmpty()) {
        LOG.info("{}: configuration changed: {}", name, String.join("; ", changed));
      }
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
    return !closed.get() && !faults.disabled();
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

  private void awaitRestore() {
    try {
      if (!restore.await(TimeUnit.MINUTES.toMillis(10))) {
        LOG.error("{}: the restore did not end in 10 minutes; shutting down without it", name);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
    if (checkpoints == null || !restore.finished() || !enterEngine()) {
      return false; // none while restoring: a partial index would make the next start colder
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
    try {
      stop();
    } catch (Throwable t) {
      LOG.error("{}: shutdown failed", name, t);
    }
  }

  private void stop() {
    if (checkpoints != null) {
      checkpoints.stop();
    }
    if (closed.get()) {
      return;
    }
    if (!restore.finished()) {
      // The restore holds the engine; it is bounded (it reads records, never blocks), so wait
      // for it: when shutdown returns the engine and its lock are released.
      LOG.info("{}: shut down while restoring; waiting for the restore to end", name);
      awaitRestore();
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
    stats.stop();
    LOG.info("{} shut down: {}", name, stats);
  }

  private void closeEngine() {
    if (inEngine.get() == 0 && engineClosed.compareAndSet(false, true)) {
      try {
        engine.close();
      } catch (IOException | RuntimeException e) {
        LOG.warn("{}: closing {} failed", name, engine.describe(), e);
      }
      if (checkpoints != null) {
        checkpoints.close();
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

  /**
   * The L2's own footprint on the Java heap (HBase's {@code HeapSize}, which
   * {@code CombinedBlockCache#heapSize} adds to the L1's): the file registry (11-21 bytes per
   * written block, about 100 per file), the admission sketch (16 bytes per block of
   * {@code hbase.blockcache.minblocksize} the capacity holds, rounded up to a power of two) plus
   * the blocks still queued for a writer. The blocks
   * themselves, the index and the slot records are off heap and not counted. O(files + queue).
   */
  @Override
  public long heapSize() {
    long queued = 0;
    for (Pending p : pending.values()) {
      queued += p.block.heapSize();
    }
    return store.files.heapBytes() + admission.heapBytes() + queued;
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

  /** The admission filter (mode and sketch), for stats and tests. */
  public Admission admission() {
    return admission;
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

  /** Whether I/O errors, or an {@link Error} caught at the tier's boundary, disabled this tier. */
  public boolean isDisabled() {
    return faults.disabled();
  }

  /**
   * Failures other than I/O errors caught at the tier's boundary (each dropped a block or
   * answered a miss; an {@link Error} also disabled the tier).
   */
  public long unexpectedFailures() {
    return faults.unexpected() + writers.failures();
  }

  /** Blocks waiting in the writers' queues. */
  public int writeQueueDepth() {
    return writers.queued();
  }

  /** The engine, as the start-up line names it (e.g. {@code file:/data/l2.cache}). */
  public String engineDescription() {
    return engine.describe();
  }

  /** The engine's read timer ({@code file:}, {@code files:}), or null if it times nothing. */
  public ReadTimer engineReadTimer() {
    return engine.readTimer();
  }

  /** How long the index restore at start took, in milliseconds; -1 while it runs. */
  public long restoreDurationMs() {
    return restore.elapsedMs();
  }

  /**
   * The last checkpoint of this run: {@code {age ms, duration ms, file bytes, failed attempts
   * in a row}}, each -1 (failures 0) when none was written or checkpoints are not configured.
   */
  public long[] checkpointStatus() {
    Checkpoints c = checkpoints;
    return c == null ? new long[] {-1, -1, -1, 0}
        : new long[] {c.ageMs(), c.lastDurationMs(), c.lastBytes(), c.failuresInARow()};
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
