/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.alloc.SlotState;
import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.index.FileTable;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.bucket.persist.IndexedBlocks;
import io.tiercache.bucket.persist.Journal;
import io.tiercache.core.file.HFiles;
import io.tiercache.core.file.Keys;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.TierBlock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockPriority;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;

/**
 * The L2's bookkeeping of written blocks: the slab allocator and the index (per file, with the
 * file's residency) kept in agreement, with the counters HBase reads.
 *
 * <h2>Invariants</h2>
 * At every stripe-lock release, for each key: its file's index table maps it to a live slot
 * whose record describes it, the file's residency counts it, and the counters include it — or
 * none of these.
 *
 * <h2>Concurrency</h2>
 * Publication and removal of a key hold the key's stripe lock (256 stripes by block offset).
 * Lock order: stripe, then the file's entry and table ({@link BlockIndex}), then allocator; a
 * slot is freed ({@code SlabAllocator.free}) only after the stripe lock is released.
 *
 * <h2>Durable index</h2>
 * With an engine that keeps a {@link DurableIndex} ({@code pmem:}), a slot is made durable under
 * the key's lock before it enters the index, and its record is invalidated as soon as it leaves
 * the index, before {@code SlabAllocator.free} may free it for reuse. {@link #clear()}
 * (shutdown) leaves the records alone: they are what the next start restores.
 */
final class BlockStore implements IndexedBlocks {
  private static final int STRIPES = 256;

  final SlabAllocator slabs;
  final BlockIndex index;
  /** The index's files: name to id, residency. */
  final HFiles<FileTable> files;
  private final TierStats stats;
  private final DurableIndex durable; // null unless the engine keeps its own index
  /** The index journal of a checkpointed engine (issue 15); set once, before any publication. */
  private volatile Journal journal;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private final long startNanos = System.nanoTime();
  private final AtomicLong blocks = new AtomicLong();
  private final AtomicLong dataBlocks = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong dataBytes = new AtomicLong();
  private final AtomicLong mutations = new AtomicLong();
  private volatile boolean closed; // set by clear(): no publication after it

  BlockStore(SlabAllocator slabs, BlockIndex index, TierStats stats, DurableIndex durable) {
    this.slabs = slabs;
    this.index = index;
    this.files = index.files();
    this.stats = stats;
    this.durable = durable;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** What the index reads and does to slot records: the allocator's. */
  static BlockIndex.Slots slots(SlabAllocator slabs) {
    return new BlockIndex.Slots() {
      @Override
      public int fileId(long handle) {
        return slabs.fileId(handle);
      }

      @Override
      public long blockOffset(long handle) {
        return slabs.blockOffset(handle);
      }

      @Override
      public void fileId(long handle, int fileId) {
        slabs.fileId(handle, fileId);
      }

      @Override
      public boolean pin(long handle) {
        return slabs.pin(handle);
      }

      @Override
      public void unpin(long handle) {
        slabs.unpin(handle);
      }

      @Override
      public int length(long handle) {
        return slabs.length(handle);
      }

      @Override
      public boolean isData(long handle) {
        return (slabs.flags(handle) & BlockMeta.F_DATA) != 0;
      }
    };
  }

  ReentrantLock stripe(long blockOffset) {
    long h = blockOffset * 0x9E3779B97F4A7C15L;
    return stripes[(int) (h >>> 56) & (STRIPES - 1)];
  }

  /** Looks up {@code key} and pins its slot; returns the handle or NONE. */
  long pin(BlockCacheKey key) {
    return index.pin(key.getHfileName(), key.getOffset());
  }

  /** Whether {@code key} is written with the in-memory flag (read while its slot is pinned). */
  boolean isInMemory(BlockCacheKey key) {
    long h = pin(key);
    if (h == Handles.NONE) {
      return false;
    }
    try {
      return (slabs.flags(h) & BlockMeta.F_IN_MEMORY) != 0;
    } finally {
      slabs.unpin(h);
    }
  }

  boolean contains(BlockCacheKey key) {
    return index.peek(key.getHfileName(), key.getOffset()) != Handles.NONE;
  }

  private static final long MINUTE_NANOS = 60_000_000_000L;

  /**
   * Minutes since the store started, modulo 2^16: the time a slot record keeps of when its block
   * was cached (16 bits, see {@code alloc.Slab}).
   */
  int now() {
    return (int) ((System.nanoTime() - startNanos) / MINUTE_NANOS) & 0xFFFF;
  }

  /**
   * When slot {@code h}'s block was cached, on the {@code System.nanoTime()} scale (what HBase's
   * eviction-age statistics and the web UI's block list take): now less the block's age in whole
   * minutes, exact to the minute for blocks younger than 2^16 minutes (45.5 days); an older
   * block's age is taken modulo 45.5 days.
   */
  long cachedAtNanos(long h) {
    long age = (now() - slabs.cachedAt(h)) & 0xFFFF;
    return System.nanoTime() - age * MINUTE_NANOS;
  }

  /**
   * Allocates a slot of {@code sizeClass}, evicting (CLOCK in the class, or draining a cold slab
   * of another class) as the allocator says; NONE if no room could be made.
   */
  long allocate(int sizeClass) {
    for (int attempt = 0; attempt < 16; attempt++) {
      long h = slabs.allocate(sizeClass);
      if (h != Handles.NONE) {
        return h;
      }
      SlabAllocator.Reclaim r = slabs.reclaim(sizeClass);
      if (r == null) {
        return Handles.NONE;
      }
      if (r.victims.length > 0) {
        stats.evict();
      }
      for (long victim : r.victims) {
        evict(victim, true);
      }
    }
    return Handles.NONE;
  }

  /**
   * Publishes the written slot {@code m.handle} under {@code key} if its slab takes
   * publications (not while it drains), {@code stillWanted} (checked under the key's lock) says
   * so, the store was not cleared (shutdown), and a slot record can describe the block
   * ({@link SlabAllocator#fits}). Returns false if the block was not published; the caller frees
   * the slot. {@code stillWanted} is not
   * asked when the slab drains, so the caller can tell that case and write the block elsewhere.
   *
   * <p>The writer fills {@code m}'s handle, length, checksum, flags, deserializer and type; the
   * rest (file, block offset, file id, cached-at time, and size class and region for a durable
   * index) is filled here.
   *
   * <p>Order under the key's lock: record filled, slot marked published (allocator lock), index.
   * A drain that lists the slot thus reads its finished record and then evicts it under this
   * same lock, after the index holds it; a drain that started first makes the mark fail.
   */
  boolean publish(BlockCacheKey key, BlockMeta m, BooleanSupplier stillWanted) {
    if (!SlabAllocator.fits(key.getOffset(), m.length)) {
      return false; // Inserts refuses such blocks first; a record could not describe it
    }
    long h = m.handle;
    long replaced = Handles.NONE;
    ReentrantLock lock = stripe(key.getOffset());
    lock.lock();
    try {
      m.file = key.getHfileName();
      m.blockOffset = key.getOffset();
      m.fileId = index.idFor(m.file);
      m.cachedAt = now();
      slabs.describe(h, m);
      if (!slabs.markPublished(h) || !stillWanted.getAsBoolean() || closed) {
        index.forgetIfEmpty(m.file);
        return false;
      }
      String region = Keys.regionOf(key);
      if (durable != null) {
        m.sizeClass = slabs.classOf(h);
        m.region = region != null ? region : files.regionOf(m.file);
        durable.publish(m);
      }
      replaced = index.put(m.file, region, m.blockOffset, h);
      if (replaced == BlockIndex.FULL) {
        // The key was new, so it has no other entry to keep: undo, and the caller drops it.
        if (durable != null) {
          durable.remove(h);
        }
        return false;
      }
      m.fileId = slabs.fileId(h); // as put left it
      if (replaced != Handles.NONE) {
        forget(replaced);
        account(replaced, -1);
      }
      Journal j = journal;
      if (j != null) {
        m.handle = h;
        m.sizeClass = slabs.classOf(h);
        j.published(m);
      }
      account(h, +1);
    } finally {
      lock.unlock();
    }
    if (replaced != Handles.NONE) {
      slabs.free(replaced);
    }
    return true;
  }

  /** Removes the block in slot {@code h} if the index still maps its key there. */
  void evict(long h, boolean forCapacity) {
    evict(h, forCapacity, true);
  }

  /**
   * Removes the block in slot {@code h} if the index still maps its key there. The key is read
   * from the record under the key's stripe lock (a publication in progress may still set the
   * record's file id, see {@link BlockIndex#put}); a slot reused for a key of another stripe
   * meanwhile is left alone (its old block is gone already).
   */
  private boolean evict(long h, boolean forCapacity, boolean durably) {
    long blockOffset = slabs.blockOffset(h);
    boolean removed;
    ReentrantLock lock = stripe(blockOffset);
    lock.lock();
    try {
      removed = slabs.blockOffset(h) == blockOffset
          && index.remove(slabs.fileId(h), blockOffset, h) == h;
      if (removed) {
        removedUnderLock(h, durably);
      }
    } finally {
      lock.unlock();
    }
    return finishRemoval(h, removed, forCapacity);
  }

  /**
   * Removes {@code key} if the index still maps it to slot {@code h}; for a caller that no longer
   * pins {@code h}, whose record may by now describe another block.
   */
  boolean evict(BlockCacheKey key, long h) {
    boolean removed;
    ReentrantLock lock = stripe(key.getOffset());
    lock.lock();
    try {
      removed = index.remove(key.getHfileName(), key.getOffset(), h) == h;
      if (removed) {
        removedUnderLock(h, true);
      }
    } finally {
      lock.unlock();
    }
    return finishRemoval(h, removed, false);
  }

  /** The bookkeeping of slot {@code h}, just removed from the index; under the key's lock. */
  private void removedUnderLock(long h, boolean durably) {
    if (durably) {
      forget(h);
    }
    account(h, -1);
  }

  /** After the key's lock: counts a capacity eviction and frees the slot. */
  private boolean finishRemoval(long h, boolean removed, boolean forCapacity) {
    if (removed) {
      if (forCapacity) {
        stats.evicted(cachedAtNanos(h), true);
      }
      slabs.free(h);
    }
    return removed;
  }

  /**
   * Removes {@code key}; {@code underLock} runs while the key's lock is held (the tier drops a
   * pending write there) and its result is or-ed into the return value.
   */
  boolean evict(BlockCacheKey key, BooleanSupplier underLock) {
    boolean alsoRemoved;
    long h = Handles.NONE;
    ReentrantLock lock = stripe(key.getOffset());
    lock.lock();
    try {
      alsoRemoved = underLock.getAsBoolean();
      h = index.remove(key.getHfileName(), key.getOffset(), Handles.NONE);
      if (h != Handles.NONE) {
        removedUnderLock(h, true);
      }
    } finally {
      lock.unlock();
    }
    if (h != Handles.NONE) {
      slabs.free(h);
    }
    return alsoRemoved || h != Handles.NONE;
  }

  /**
   * Drops every block from the bookkeeping (shutdown); engine bytes are left as they are. Later
   * publications are refused; one in progress under its stripe lock finishes first (each stripe
   * is taken once before the index is read), so nothing enters the index after this.
   */
  void clear() {
    closed = true;
    for (ReentrantLock stripe : stripes) {
      stripe.lock();
      stripe.unlock();
    }
    List<Long> all = new ArrayList<>();
    index.forEach((fileId, blockOffset, h) -> all.add(h));
    for (long h : all) {
      evict(h, false, false);
    }
  }

  /**
   * Invalidates the durable record of a slot that just left the index, and journals the
   * removal (before the slot's reuse, whose publication the journal thus records after it).
   */
  private void forget(long h) {
    if (durable != null) {
      durable.remove(h);
    }
    Journal j = journal;
    if (j != null) {
      j.removed(h, slabs.fileId(h), slabs.blockOffset(h));
    }
  }

  /** Journals every publication and removal from now on (before the tier takes inserts). */
  void journal(Journal j) {
    this.journal = j;
  }

  @Override
  public boolean evictRestored(long handle) {
    return evict(handle, false, false);
  }

  @Override
  public void dropAll() {
    List<Long> all = new ArrayList<>();
    index.forEach((fileId, blockOffset, h) -> all.add(h));
    for (long h : all) {
      evict(h, false, false);
    }
  }

  /** Counts a slot in (+1) or out (-1); callers hold the key's stripe lock or own the store. */
  void account(long h, int sign) {
    mutations.incrementAndGet();
    long length = slabs.length(h);
    blocks.addAndGet(sign);
    bytes.addAndGet(sign * length);
    if ((slabs.flags(h) & BlockMeta.F_DATA) != 0) {
      dataBlocks.addAndGet(sign);
      dataBytes.addAndGet(sign * length);
    }
  }

  @Override
  public SlabAllocator slabs() {
    return slabs;
  }

  @Override
  public BlockIndex index() {
    return index;
  }

  @Override
  public long mutations() {
    return mutations.get();
  }

  @Override
  public void restored(long handle) {
    account(handle, +1);
  }

  long blocks() {
    return blocks.get();
  }

  long dataBlocks() {
    return dataBlocks.get();
  }

  long bytes() {
    return bytes.get();
  }

  long dataBytes() {
    return dataBytes.get();
  }

  /**
   * The written blocks, for the web UI, made one at a time as the caller asks: the heap holds
   * one index batch (256 entries) and the blocks the caller keeps, never the whole cache (HBase's
   * {@code BlockCacheUtil} stops after {@code hbase.ui.blockcache.by.file.max} blocks). Weakly
   * consistent ({@link BlockIndex#cursor}); a slot reused since its entry was read is skipped.
   */
  Iterator<CachedBlock> iterator() {
    BlockIndex.Cursor cursor = index.cursor(256);
    BlockType[] types = BlockType.values();
    return new Iterator<CachedBlock>() {
      private CachedBlock next;

      @Override
      public boolean hasNext() {
        while (next == null && cursor.next()) {
          long h = cursor.handle();
          long blockOffset = slabs.blockOffset(h);
          int t = slabs.type(h);
          int flags = slabs.flags(h);
          int length = slabs.length(h);
          int freq = slabs.freq(h);
          long cachedAt = cachedAtNanos(h);
          int state = slabs.state(h);
          if (slabs.fileId(h) != cursor.fileId() || slabs.blockOffset(h) != blockOffset
              || !SlotState.isLive(state)) {
            continue; // evicted (and perhaps reused) since the cursor read the entry
          }
          BlockPriority priority = (flags & BlockMeta.F_IN_MEMORY) != 0
              ? BlockPriority.MEMORY
              : freq >= 1 || SlotState.isProtected(state) ? BlockPriority.MULTI
                  : BlockPriority.SINGLE;
          next = new TierBlock(cursor.file(), blockOffset, t < types.length ? types[t] : null,
              priority, length, cachedAt);
        }
        return next != null;
      }

      @Override
      public CachedBlock next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        CachedBlock b = next;
        next = null;
        return b;
      }
    };
  }

  void checkInvariants(long capacity) {
    index.check(); // each entry's slot record holds the key that leads to it
    long[] count = new long[2];
    index.forEach((fileId, blockOffset, h) -> {
      count[0]++;
      count[1] += slabs.length(h);
      int state = slabs.state(h);
      if (!SlotState.isLive(state)) {
        throw new IllegalStateException("indexed slot " + Handles.toString(h) + " has state "
            + Integer.toHexString(state));
      }
      if (files.nameOf(fileId) == null) {
        throw new IllegalStateException("slot " + Handles.toString(h) + " describes "
            + fileId + "@" + blockOffset + ", a file the registry does not hold");
      }
    });
    if (count[0] != blocks.get() || count[1] != bytes.get()) {
      throw new IllegalStateException("index holds " + count[0] + " blocks/" + count[1]
          + "B, counters say " + blocks.get() + "/" + bytes.get());
    }
    if (files.blockCount() != count[0]) {
      throw new IllegalStateException(
          "file registry holds " + files.blockCount() + " blocks, index " + count[0]);
    }
    if (slabs.usedSlotBytes() > capacity) {
      throw new IllegalStateException("slots in use exceed capacity");
    }
  }
}
