/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.admit.Admission;
import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.write.Pending;
import io.tiercache.bucket.write.WriteBehind;
import io.tiercache.core.log.LogLimit;
import io.tiercache.core.stats.TierStats;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockCacheUtil;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L2's write path: admission on the caller's thread, then the block is pending in the
 * {@link WriteBehind} (already a hit), then it is written: a slot of the block's size class is
 * allocated ({@link BlockStore#allocate}, which evicts by CLOCK or drains a cold slab when
 * needed), the block is serialized into the engine with a CRC32C ({@link BlockCodec}) and the
 * slot is published ({@link BlockStore#publish}).
 *
 * <p>Who writes ({@code tiercache.l2.write.mode}, changeable at run time):
 * <ul>
 *   <li>{@code inline} (the default): the caller, before {@code cacheBlock} returns, evicting if
 *       it must. On the showdown's 2 cores, with page-cache misses, this beat the write-behind
 *       on p99 and throughput in every 64 KB cell at 3x and 9x: a hand-off wakes a writer that
 *       then preempts a reader, and a full queue made the reader drop the block
 *       (docs/benchmarks.md, "Inline L2 writes").</li>
 *   <li>{@code queued}: HBase's write-behind; the block is queued for a writer thread. If the
 *       writer's queue is full the caller writes the block itself, but only into free space; it
 *       never evicts, and drops the block (counted) when no free space is left.</li>
 * </ul>
 * {@code waitWhenCache} callers write themselves and may evict, in either mode.
 *
 * <h2>Concurrency</h2>
 * Any thread inserts; writer threads and callers write. Every engine access is inside
 * {@link EngineGuard#enter}/{@code exit}; a block's pending reference is released by whoever
 * ends its write.
 */
final class Inserts {
  private static final Logger LOG = LoggerFactory.getLogger(BucketTier.class);

  /** Slots a block is written to before it is dropped because each one's slab drained. */
  private static final int PUBLISH_ATTEMPTS = 3;

  private final BucketTier tier;
  private final String name;
  private final BucketConfig config;
  private final BlockStore store;
  private final SlabAllocator slabs;
  private final BlockCodec codec;
  private final FaultTracker faults;
  private final TierStats stats;
  private final Admission admission;
  private final ColdFiles coldFiles;
  private final EngineGuard guard;
  final WriteBehind writeBehind;
  private final LongAdder fullQueueDrops = new LongAdder();
  private final LogLimit refusedLog = new LogLimit(LogLimit.MINUTE);
  /** {@code tiercache.l2.write.mode} is {@code inline}: callers write their blocks. */
  private volatile boolean inline;

  /**
   * The write path of {@code tier}, whose parts are built; starts the writer threads (which may
   * evict).
   */
  Inserts(BucketTier tier) {
    this.tier = tier;
    this.name = tier.name;
    this.config = tier.config;
    this.store = tier.store;
    this.slabs = tier.slabs;
    this.codec = tier.codec;
    this.faults = tier.faults;
    this.stats = tier.stats;
    this.admission = tier.admission;
    this.coldFiles = tier.coldFiles;
    this.guard = tier.guard;
    this.writeBehind = new WriteBehind("tiercache-" + name, config.writerThreads,
        config.writerQueue, p -> write(p, Handles.NONE));
    setWriteMode(config.writeMode);
  }

  /** Applies {@code tiercache.l2.write.mode} ({@code inline} or {@code queued}, validated). */
  void setWriteMode(String mode) {
    inline = mode.equals("inline");
  }

  /** The write mode in force: {@code inline} or {@code queued}. */
  String writeMode() {
    return inline ? "inline" : "queued";
  }

  void insert(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache, boolean admitted) {
    if (guard.isClosed() || faults.disabled()) {
      return;
    }
    if (tier.restore.running()) {
      tier.restore.droppedInsert(); // the restore claims the slots its records name
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
    if (!SlabAllocator.fits(key.getOffset(), buf.getSerializedLength())) {
      stats.failInsert();
      long quiet = refusedLog.admit(System.nanoTime());
      if (quiet >= 0) {
        LOG.warn("{}: refused block {} of {} bytes: a slot record holds HFile offsets below 2^40"
            + " and blocks of 1 byte to 16 MB ({} more since the last such line; at most one "
            + "line a minute)", name, key, buf.getSerializedLength(), quiet);
      }
      return;
    }
    if (writeBehind.contains(key) || (store.contains(key)
        && !BlockCacheUtil.shouldReplaceExistingCacheBlock(tier, key, buf))) {
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
    if (!writeBehind.add(p)) {
      buf.release();
      return;
    }
    if (waitWhenCache || inline) {
      write(p, Handles.NONE);
      return;
    }
    long h;
    try {
      if (writeBehind.offer(p)) {
        return;
      }
      // The reader's thread never evicts: eviction is the writers' work.
      h = slabs.allocate(sizeClass);
    } catch (RuntimeException | Error e) { // not handed to anyone: drop it here
      writeBehind.remove(p);
      p.block.release();
      throw e;
    }
    if (h != Handles.NONE) {
      write(p, h);
    } else {
      fullQueueDrops.increment();
      stats.failInsert();
      writeBehind.remove(p);
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
   *       unlucky, at random), or else at the filter's learned leniency
   *       ({@link Admission#admits(BlockCacheKey, String, long)}). A victim whose file the
   *       index no longer names (its file dropped meanwhile), or no published victim at all,
   *       admits a candidate seen at least twice.</li>
   * </ol>
   * Every insert attempt is counted in the sketch first.
   */
  private boolean admits(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache, int sizeClass) {
    if (!admission.filtering()) {
      return true;
    }
    admission.inserting(key);
    if (inMemory || waitWhenCache || tier.isMetaBlock(buf.getBlockType())) {
      return true;
    }
    long victim = slabs.admissionVictim(sizeClass);
    if (victim == SlabAllocator.NO_VICTIM) {
      return true;
    }
    String victimFile = victim == Handles.NONE ? null
        : store.files.nameIfIndexed(slabs.fileId(victim));
    if (victimFile == null) {
      return admission.frequency(key.getHfileName(), key.getOffset()) >= 2;
    }
    return admission.admits(key, victimFile, slabs.blockOffset(victim));
  }

  /**
   * Writes a pending block into {@code slot} (or a slot allocated here, evicting as needed, if
   * NONE) and publishes it; on any failure drops it. Frees the slot if it is not published. A
   * slot whose slab started draining while the block was written is refused publication
   * ({@link BlockStore#publish}); the block is then written again into another slot, taken the
   * same way (from free space only if the caller gave the first slot), at most
   * {@value #PUBLISH_ATTEMPTS} times. Throws nothing: a failure other than an I/O error is
   * recorded ({@code BucketTier.unexpected}), and an {@link Error} (e.g. a store into a mapped
   * page the file system could not back) disables the tier.
   */
  void write(Pending p, long slot) {
    boolean mayEvict = slot == Handles.NONE;
    long h = slot;
    if (!guard.enter()) {
      freeUnpublished(h);
      p.block.release();
      return;
    }
    try {
      for (int attempt = 1; ; attempt++) {
        if (!writeBehind.isCurrent(p) || faults.disabled()) {
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
          writeBehind.remove(p);
          return;
        }
        boolean done = writeAndPublish(p, h, length);
        h = Handles.NONE; // published or freed: no longer this write's
        if (done) {
          return;
        }
        if (attempt == PUBLISH_ATTEMPTS) {
          if (writeBehind.remove(p)) {
            stats.failInsert();
          }
          return;
        }
        // Still pending: the slab drains (or the block went and came back), so write it again.
      }
    } catch (RuntimeException | Error e) {
      writeBehind.remove(p);
      if (h != Handles.NONE) {
        dropFailed(p.key, h);
      }
      stats.failInsert();
      tier.unexpected("write of " + p.key, e);
    } finally {
      p.block.release();
      guard.exit();
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
      checksum = codec.write(p.block, slabs.address(h), length);
    } catch (IOException e) {
      writeBehind.remove(p);
      boolean disableNow = faults.error("write of " + p.key, e);
      slabs.free(h);
      if (disableNow) {
        writeBehind.stop();
      }
      return true;
    }
    faults.success();
    stats.wrote(length);
    boolean published = store.publish(p.key, BlockCodec.written(h, p.block, length, checksum,
        p.inMemory, !tier.isMetaBlock(p.block.getBlockType())), () -> writeBehind.remove(p));
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

  /**
   * Blocks dropped because their writer's queue was full and no free slot or slab was left
   * (also counted as failed inserts).
   */
  long fullQueueDrops() {
    return fullQueueDrops.sum();
  }
}
