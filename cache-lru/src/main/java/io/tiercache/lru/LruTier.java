/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.ConfigReport;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.file.FileRegistry;
import io.tiercache.core.file.Keys;
import io.tiercache.core.log.LogLimit;
import io.tiercache.core.metrics.Publication;
import io.tiercache.core.metrics.PublishesMetrics;
import io.tiercache.core.metrics.TierCacheSource;
import io.tiercache.core.ref.RefCounts;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import io.tiercache.core.tier.TierBlock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockCacheUtil;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.FirstLevelBlockCache;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hbase.thirdparty.com.google.gson.annotations.JsonAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TierCache's on-heap L1: an HBase {@link FirstLevelBlockCache} with a W-TinyLFU policy that keeps
 * HBase's single-access, multi-access and in-memory priorities.
 *
 * <p>Load it on its own with a {@code Configuration} (HBase's {@code hfile.block.cache.*} and
 * {@code hbase.lru.*} keys, see {@code docs/configuration.md}), or build one with
 * {@link #builder()}. HBase's {@code HeapMemoryManager} resizes it through {@link #setMaxSize}.
 *
 * <h2>Implementation notes</h2>
 * <b>Index.</b> A {@link ConcurrentHashMap} from key to {@link Node}; a hit is a lock-free map
 * lookup plus a {@link RefCounts#tryRetain retain}. The access is recorded in a lossy striped
 * {@link ReadBuffer} and applied to the policy later by whichever thread holds the eviction lock (a
 * hit only {@code tryLock}s when its stripe is full, and never waits). Until the cache first holds
 * half its maximum, only hits that promote (a block in PROBATION becomes multi-access) are
 * recorded: nothing is evicted for a while yet, so reordering a queue and counting in the sketch
 * buy nothing then, and applying them was a third of a hit's time in the JMH hit benchmark
 * (Caffeine skips its read buffer altogether until its sketch is initialised at half the maximum;
 * promotions are kept here so that a block read twice becomes multi-access, as in HBase's
 * LruBlockCache, at the next drain). Later, while the cache is quiet ({@link Policy#quiet}: inserts
 * under 1 % of the last 4,096 requests), only one in {@value #HOT_HIT_SAMPLE} hits on PROTECTED
 * blocks and one in {@value #MEMORY_HIT_SAMPLE} on MEMORY blocks (in-memory, index, bloom: read on
 * every get) is recorded, marked {@link Node#sampled} so that the policy counts it that many
 * times ({@link #sampleRate}): a cache that hardly evicts consults its order rarely, and applying
 * every hit (list moves on nodes the other core last touched, the lock) set the L1's p99 in the
 * showdown's 1x cells at 1.3 to 6.9 times {@code LruBlockCache}'s (docs/benchmarks.md). Hits on
 * WINDOW and PROBATION blocks, and every hit of a cache that inserts more, are all recorded.
 *
 * <p><b>Drains.</b> Recorded hits are applied in batches: by the hit that finds its stripe
 * full ({@value ReadBuffer#STRIPE_SIZE} deep), that stripe alone, so that one hit never pays for
 * every other thread's; all stripes by one put in {@value #SWEEP_PUTS} (an insert, queued or
 * not), by {@link #wouldAdmit}, by a file's invalidation, at shutdown and by
 * {@link #checkInvariants}. Other inserts do not drain: they evict on the order the last drain
 * left, at most a stripe's depth of hits per stripe behind (a block read again in PROBATION is
 * promoted, and its sketch count raised, only then), so that a miss does not also pay for the
 * readers' bookkeeping. The sweep by puts bounds how long a stripe whose thread stopped reading
 * keeps nodes reachable: a node in a stripe holds its block, evicted meanwhile or not, and
 * evictions come from puts. {@code wouldAdmit} drains every time: the combined cache's hot mode
 * asks it on an L2 hit, and on a stale order its copies into the L1 were worse (p99 3x at
 * {@code zipf-64k-1x}). Measured (docs/benchmarks.md, "A read buffer four times as
 * deep"): with stripes of 16 and every insert draining, a drain fell on ~1 % of the hits of a
 * 1x cell and the L1's p99 in the zipf, scan and mixed 1x cells was 1.05 to 3.1 times
 * {@code LruBlockCache}'s; with 64, one stripe per drain and inserts not draining, 0.45 to 0.85
 * times, the hit ratios as before.
 *
 * <p><b>Writes.</b> Inserts, explicit evictions and resizes take the eviction lock, update the
 * map, the {@link Policy} and the {@link FileRegistry} together, and collect the blocks evicted
 * for capacity. After unlocking, each such block is handed to the victim cache (if set) and then
 * released; a block copied on heap at insert is never shared with the caller. An insert never
 * waits for the lock (Caffeine's write buffer): one that finds it held queues its new node in
 * {@code writeBuffer} and returns, and the node is applied, in order, by the next thread that
 * holds the lock: every holder applies the queued nodes first and, after unlocking, takes the
 * lock again if it is free and nodes were queued meanwhile, so none is left behind a holder that
 * has gone. Only with {@value #WRITE_BUFFER_MAX} nodes queued does an insert wait (each holds a
 * block). A queued block is a hit (found by key in {@code queuedByKey}; HBase's
 * {@code CacheTestUtils} reads a block back right after caching it), but not recorded for the
 * policy until it is applied. Explicit evictions, resizes, shutdown and the
 * invariant check apply the queue first, so a thread's own insert precedes its later eviction.
 * (JFR, {@code zipf-64k-9x} with page-cache misses: 1 % of the L1's operations parked 10 us to
 * 5 ms on this lock in the insert, which set its p99 and p99.9.)
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>At every lock release, the map, the policy queues and the file registry hold the same
 *       blocks, and the policy's weight is at most the maximum size.</li>
 *   <li>Every block in the map holds exactly one reference owned by this cache, released once
 *       when it leaves the map (after the victim hand-off for capacity evictions).</li>
 *   <li>{@link #getBlock} returns a block only after retaining it for the caller; a block freed
 *       by a concurrent eviction is reported as a miss.</li>
 * </ul>
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method. {@code evictionLock} guards the map's mutations, the policy
 * and the registry; reads of the map are lock free. The victim cache is called without the lock.
 *
 * <p><b>Hand-offs and explicit evictions.</b> A capacity victim leaves the map under
 * {@code evictionLock} and reaches the victim cache after it, so an explicit eviction in between
 * would find it in neither cache and the hand-off would then cache it below, outliving the
 * eviction. A thread with victims to hand off takes the read lock of {@code handOffs} before it
 * releases {@code evictionLock} and holds it until the hand-off is done; {@link #evictBlock} and
 * {@link #evictBlocksByHfileName} (when a victim cache is set) take and drop the write lock after
 * their own removal, so they return only once every hand-off of a block that left before them is
 * in the victim cache, where the caller's eviction of the lower tier (which runs next, as
 * HBase's {@code CombinedBlockCache} and TierCache's combined cache do) finds it. Lock order:
 * {@code evictionLock}, then {@code handOffs}; nothing is locked while waiting for the write lock,
 * and a hand-off takes no lock of this tier.
 *
 * <h2>Size</h2>
 * Past the style guide's 600 lines by about 490: the policy already lives apart ({@link Policy},
 * {@code WindowClimber}, {@code FrequencySketch}, {@code ReadBuffer}; {@link Policy#quiet} decides
 * when hot hits are sampled, the hit path here only reads it); what stays is the whole
 * HBase 2.6 {@code FirstLevelBlockCache} surface with its containment, the hand-off
 * serialisation and the write buffer above (both change the map, the policy and the registry
 * under the one lock), online reconfiguration and the three questions the combined cache's hot
 * mode asks ({@link #getIfPresent}, {@link #wouldAdmit}, {@link #setMemoryFirst}), which share
 * the map, the registry and the two locks.
 */
// The web UI's JSON view shows a metrics snapshot (TierJson), not this class's fields.
@JsonAdapter(LruTierMetrics.Json.class)
public final class LruTier implements FirstLevelBlockCache, CacheTier, PublishesMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(LruTier.class);
  private static final long UNEXPECTED_LOG_NANOS = 60_000_000_000L;

  private final ConcurrentHashMap<BlockCacheKey, Node> map;
  /** Package-private: tests hold it from another thread to find a writer that never waits. */
  final ReentrantLock evictionLock = new ReentrantLock();
  private final ReentrantReadWriteLock handOffs = new ReentrantReadWriteLock();
  private final ReadBuffer<Node> readBuffer = new ReadBuffer<>();
  /** Blocks put since the last drain of every stripe by a put (guarded by the eviction lock). */
  private int putsSinceSweep;
  /** Inserts that found {@code evictionLock} held, applied by its next holder. */
  private final ConcurrentLinkedQueue<Node> writeBuffer = new ConcurrentLinkedQueue<>();
  /** The queued nodes by key, so that a queued block is a hit (not yet recorded for the policy). */
  private final ConcurrentHashMap<BlockCacheKey, Node> queuedByKey = new ConcurrentHashMap<>();
  private final AtomicInteger queuedWrites = new AtomicInteger();
  /** Every this many puts, one drains every stripe of the read buffer (see "Drains"). */
  static final int SWEEP_PUTS = 64;
  /** Queued inserts past which an insert waits for the lock instead (each holds a block). */
  static final int WRITE_BUFFER_MAX = 64;
  /** A quiet L1 records one in this many hits on PROTECTED blocks (a power of 2). */
  static final int HOT_HIT_SAMPLE = 8;
  /**
   * A quiet L1 records one in this many hits on MEMORY (in-memory and meta) blocks (a power of
   * 2): an index or bloom block is read on every get, and MEMORY's order is consulted only when
   * MEMORY is the share that gives way.
   */
  static final int MEMORY_HIT_SAMPLE = 64;
  private final FileRegistry files = new FileRegistry();
  private final AtomicLong unexpectedFailures = new AtomicLong();
  private final AtomicLong lastUnexpectedLog = new AtomicLong();
  private final LogLimit refusedLog = new LogLimit(LogLimit.MINUTE);
  private final TierStats stats;
  private final Policy policy; // guarded by evictionLock, but for its volatile quiet()
  /** {@code policy::onAccess}, made once: a drain allocates nothing. */
  private final Consumer<Node> applyAccess;
  private volatile LruConfig config; // replaced under evictionLock by onConfigurationChange
  /** The configuration the current settings were read from (empty for a tier built in code). */
  private volatile Configuration applied = new Configuration(false);
  private final String name;

  private volatile BlockCache victimCache;
  private volatile boolean shutdown;
  /** This L1's own metrics, when it is a RegionServer's whole cache; else null. */
  private Publication metrics; // guarded by evictionLock
  /**
   * Whether every hit is recorded for the policy, not only promotions: set, once and for good,
   * under evictionLock when the weight first reaches half the maximum (see the class comment);
   * read by every hit.
   */
  private volatile boolean recordHits;
  // Written under evictionLock, read without it.
  private volatile long maxSize;
  private volatile long weight;
  private volatile long blockCount;
  private volatile long dataWeight;
  private volatile long dataBlockCount;

  /**
   * Builds an L1 from HBase configuration keys; the constructor HBase and the combined cache use.
   *
   * @throws io.tiercache.core.config.SettingException naming the key of an invalid value
   */
  public LruTier(Configuration conf) {
    this(LruConfig.from(ConfigReport.logOnce(conf)), "L1");
    this.applied = new Configuration(conf);
    LOG.info("TierCache L1 started: {}", CacheSettings.describe(conf, LruConfig.SETTINGS));
  }

  LruTier(LruConfig config, String name) {
    this.config = config;
    this.name = name;
    this.stats = new TierStats(name, config.statsPeriods, config.statsPeriodMinutes);
    this.maxSize = config.maxSize;
    this.policy = new Policy(config, stats);
    this.applyAccess = policy::onAccess;
    this.map = new ConcurrentHashMap<>(
        (int) Math.min(1 << 20, Math.max(16, config.maxSize / config.blockSizeHint)));
  }

  /** Returns a builder for an L1 configured in code rather than by configuration keys. */
  public static LruTierBuilder builder() {
    return new LruTierBuilder();
  }

  @Override
  public String name() {
    return name;
  }

  // ---------------------------------------------------------------------------------------------
  // Hot path
  // ---------------------------------------------------------------------------------------------

  /**
   * Returns the cached block with one reference taken for the caller, who must
   * {@code release()} it; the block stays valid until then even if it is evicted meanwhile.
   * On a miss, asks the victim cache (if set, and if this is not a repeated lookup) and, when
   * {@code caching}, promotes what it finds into this tier.
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
    Node node = find(key);
    if (node != null && RefCounts.tryRetain(node.block)) {
      if (updateCacheMetrics) {
        stats.hit(caching, key.isPrimary(), key.getBlockType());
      }
      recordAccess(node);
      return node.block;
    }
    if (!repeat && updateCacheMetrics) {
      stats.miss(caching, key.isPrimary(), key.getBlockType());
    }
    BlockCache victim = victimCache;
    if (victim == null || repeat) {
      return null;
    }
    Cacheable fromVictim = victim.getBlock(key, caching, repeat, updateCacheMetrics);
    if (fromVictim != null && caching) {
      cacheBlock(key, fromVictim, false);
    }
    return fromVictim;
  }

  /**
   * A lookup of this tier alone: a hit is as in {@link #getBlock} (one reference taken for the
   * caller, counted when {@code updateCacheMetrics}, recorded for the policy); a miss is not
   * counted and the victim cache is not asked. The combined cache's hot mode looks here first
   * and counts a miss in the tier HBase counts it in: one map lookup instead of a
   * {@link #containsBlock} and a {@link #getBlock}.
   */
  public Cacheable getIfPresent(BlockCacheKey key, boolean caching, boolean updateCacheMetrics) {
    try {
      Node node = find(key);
      if (node == null || !RefCounts.tryRetain(node.block)) {
        return null;
      }
      if (updateCacheMetrics) {
        stats.hit(caching, key.isPrimary(), key.getBlockType());
      }
      recordAccess(node);
      return node.block;
    } catch (Throwable t) { // nothing leaves a BlockCache method: a failure is a miss
      unexpected("getBlock of " + key, t);
      return null;
    }
  }

  /** The key's node in the map, else its queued insert (see {@link #insert}), else null. */
  private Node find(BlockCacheKey key) {
    Node node = map.get(key);
    return node != null || queuedWrites.get() == 0 ? node : queuedByKey.get(key);
  }

  private void recordAccess(Node node) {
    if (node.queued) {
      return; // not in the policy's queues yet: nothing to reorder
    }
    byte queue = node.queue;
    boolean sample = recordHits && (queue == Node.PROTECTED || queue == Node.MEMORY)
        && policy.quiet();
    boolean record = sample
        ? (ThreadLocalRandom.current().nextInt() & (sampleRate(node) - 1)) == 0
        : recordHits || queue == Node.PROBATION;
    if (record && node.sampled != sample) {
      node.sampled = sample; // written only when it changes: hot nodes stay read-shared
    }
    if (record && readBuffer.offer(node) == ReadBuffer.FULL && evictionLock.tryLock()) {
      try {
        drainFullStripe();
      } finally {
        evictionLock.unlock();
      }
      drainWrites();
    }
  }

  /**
   * How many hits a sampled hit on {@code node} stands for: {@value #MEMORY_HIT_SAMPLE} on an
   * in-memory or meta block (MEMORY, where it stays until removed), else {@value #HOT_HIT_SAMPLE}.
   */
  static int sampleRate(Node node) {
    return node.inMemory ? MEMORY_HIT_SAMPLE : HOT_HIT_SAMPLE;
  }

  private void drainReads() {
    readBuffer.drainTo(applyAccess);
  }

  /** A hit found its stripe full: drains that stripe alone. Caller holds the lock. */
  private void drainFullStripe() {
    readBuffer.drainOwnTo(applyAccess);
  }

  // ---------------------------------------------------------------------------------------------
  // Writes
  // ---------------------------------------------------------------------------------------------

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf) {
    cacheBlock(key, buf, false);
  }

  /**
   * Caches {@code buf} under {@code key}. The caller keeps its own reference: this tier either
   * retains {@code buf} (heap blocks) or keeps a heap copy (blocks in shared memory). Blocks
   * larger than {@code hbase.lru.max.block.size} are refused and counted as failed inserts.
   * In-memory blocks and index/bloom blocks get the in-memory priority.
   */
  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory) {
    try {
      insert(key, buf, inMemory, true);
    } catch (Throwable t) { // nothing leaves a BlockCache method: the block is dropped
      unexpected("cacheBlock of " + key, t);
    }
  }

  /**
   * Records a failure caught at this tier's boundary (a heap copy that ran out of memory, a
   * victim cache that threw): logged with its stack trace at most once a minute, counted.
   */
  private void unexpected(String what, Throwable t) {
    long n = unexpectedFailures.incrementAndGet();
    long now = System.nanoTime();
    long last = lastUnexpectedLog.get();
    if ((n == 1 || now - last >= UNEXPECTED_LOG_NANOS) && lastUnexpectedLog.compareAndSet(last, now)) {
      try {
        LOG.error("{}: {} failed ({} so far); the block is dropped", name, what, n, t);
      } catch (Throwable ignored) { // logging failed too: the count remains
        // nothing more to do without risking the caller
      }
    }
  }

  /** Failures caught at this tier's boundary ({@code getBlock}, {@code cacheBlock}, hand-off). */
  public long unexpectedFailures() {
    return unexpectedFailures.get();
  }

  /**
   * As {@link #cacheBlock(BlockCacheKey, Cacheable, boolean)}, but only if the eviction lock is
   * free now: a thread that would have to wait for it caches nothing and returns false (the heap
   * copy it made, if any, is released). The combined cache's hot mode copies an L2 hit up this
   * way: the block is already served from the L2, so a reader never parks behind another
   * thread's insert or drain for a copy it can try again at the block's next hit (JFR,
   * {@code hbase-64k-3x}: readers' parks over 200 us on the L1's lock in the insert).
   *
   * @return whether this tier took the block (its policy may still evict it at once, as for
   *     any insert)
   */
  public boolean cacheBlockIfIdle(BlockCacheKey key, Cacheable buf, boolean inMemory) {
    try {
      return insert(key, buf, inMemory, false);
    } catch (Throwable t) { // nothing leaves a BlockCache method: the block is dropped
      unexpected("cacheBlock of " + key, t);
      return false;
    }
  }

  /** Caches {@code buf}; with {@code wait} false, only if the eviction lock is free now. */
  private boolean insert(BlockCacheKey key, Cacheable buf, boolean inMemory, boolean wait) {
    if (shutdown) {
      return false;
    }
    if (buf.heapSize() > config.maxBlockSize) {
      stats.failInsert();
      if (refusedLog.admit(System.nanoTime()) >= 0) {
        LOG.warn("{}: refused block {} of {} bytes, over {} ({} refused so far; at most one "
            + "line a minute)", name, key, buf.heapSize(), CacheSettings.L1_MAX_BLOCK_SIZE.key(),
            stats.getFailedInserts());
      }
      return false;
    }
    if (map.containsKey(key) && !BlockCacheUtil.shouldReplaceExistingCacheBlock(this, key, buf)) {
      return false;
    }
    boolean meta = isMetaBlock(buf.getBlockType());
    Node node = new Node(key, RefCounts.ownOnHeap(buf), !meta,
        inMemory || meta ? Node.MEMORY : Node.WINDOW);
    if (node.weight > maxSize) {
      stats.failInsert();
      node.block.release();
      return false;
    }
    if (!evictionLock.tryLock()) {
      if (!wait) {
        node.block.release();
        return false;
      }
      if (queuedWrites.incrementAndGet() <= WRITE_BUFFER_MAX) {
        node.queued = true;
        queuedByKey.put(key, node);
        writeBuffer.add(node);
        drainWrites();
        return true;
      }
      queuedWrites.decrementAndGet();
      evictionLock.lock();
    }
    List<Node> evicted = new ArrayList<>(2);
    List<Node> dropped = new ArrayList<>(1);
    boolean accepted = false;
    try {
      applyWritesLocked(evicted, dropped);
      if (!shutdown) {
        accepted = true;
        putLocked(node, evicted, dropped); // on the order the last drain left (see "Drains")
      }
      publishSizes();
      beginHandOff(evicted);
    } finally {
      evictionLock.unlock();
    }
    if (!accepted) {
      dropped.add(node);
    }
    finishWrites(evicted, dropped);
    drainWrites();
    return accepted;
  }

  /**
   * Puts {@code node} in the map, the registry and the policy, which may evict (into
   * {@code evicted}, out of the index already); a block it replaces goes to {@code dropped}.
   * Caller holds the lock.
   */
  private void putLocked(Node node, List<Node> evicted, List<Node> dropped) {
    if (++putsSinceSweep >= SWEEP_PUTS) {
      putsSinceSweep = 0;
      drainReads(); // see "Drains": a node in a stripe keeps its block, evicted or not, reachable
    }
    BlockCacheKey key = node.key;
    Node replaced = map.put(key, node);
    if (replaced != null) {
      policy.remove(replaced);
      dropped.add(replaced);
    } else {
      files.add(key.getHfileName(), key.getOffset(), node.block.getSerializedLength(),
          node.data, Keys.regionOf(key));
    }
    int from = evicted.size();
    policy.add(node, evicted);
    for (int i = from; i < evicted.size(); i++) {
      removeFromIndex(evicted.get(i));
    }
  }

  /** Applies the queued inserts in order (dropped once shut down). Caller holds the lock. */
  private void applyWritesLocked(List<Node> evicted, List<Node> dropped) {
    for (Node n = writeBuffer.poll(); n != null; n = writeBuffer.poll()) {
      queuedWrites.decrementAndGet();
      queuedByKey.remove(n.key, n);
      if (shutdown) {
        n.queue = Node.REMOVED; // never in the policy: an access drained later is ignored
        n.queued = false;
        dropped.add(n);
      } else {
        putLocked(n, evicted, dropped);
        n.queued = false; // in the policy's queues now: its accesses count from here
      }
    }
  }

  /** After unlocking: releases replaced and refused blocks, hands victims off. */
  private void finishWrites(List<Node> evicted, List<Node> dropped) {
    try {
      for (Node n : dropped) {
        n.block.release();
      }
    } finally {
      handOff(evicted);
    }
  }

  /**
   * Applies queued inserts while there are some and the lock is free; called after every
   * release of the lock by this tier's methods, so that an insert queued while the lock was
   * held is applied by its holder or by the inserter itself.
   */
  private void drainWrites() {
    while (!writeBuffer.isEmpty() && evictionLock.tryLock()) {
      applyQueuedAndUnlock();
    }
  }

  /** Inserts queued for the lock's next holder (for tests). */
  int queuedWrites() {
    return queuedWrites.get();
  }

  /** Waits for the lock if inserts are queued, and applies them (before an explicit change). */
  private void flushWrites() {
    if (!writeBuffer.isEmpty()) {
      evictionLock.lock();
      applyQueuedAndUnlock();
    }
  }

  private void applyQueuedAndUnlock() {
    List<Node> evicted = new ArrayList<>(2);
    List<Node> dropped = new ArrayList<>(1);
    try {
      applyWritesLocked(evicted, dropped);
      publishSizes();
      beginHandOff(evicted);
    } finally {
      evictionLock.unlock();
    }
    finishWrites(evicted, dropped);
  }

  /**
   * Whether a data block of {@code heapSize} bytes that this tier does not hold would win its
   * place if it were cached now (see {@code Policy#wouldAdmit}: room for it, or a sketch
   * estimate above that of the block the admission duel would evict). A block that would lose
   * is counted as an admission reject and its attempt as a sighting, as {@link #cacheBlock}
   * would count them; nothing is cached. The combined cache's hot mode asks before it copies a
   * block out of the L2, so that a copy the duel would throw away at once is never made. Never
   * waits: answers false, counting nothing, when the eviction lock is busy (hot mode then tries
   * again at the block's next L2 hit).
   */
  public boolean wouldAdmit(BlockCacheKey key, long heapSize) {
    try {
      if (shutdown || !evictionLock.tryLock()) {
        return false;
      }
      try {
        drainReads();
        return policy.wouldAdmit(key.hashCode(), heapSize + key.heapSize() + Node.OVERHEAD);
      } finally {
        evictionLock.unlock();
        drainWrites();
      }
    } catch (Throwable t) { // nothing leaves this tier: no copy then
      unexpected("wouldAdmit of " + key, t);
      return false;
    }
  }

  /** Takes a node's block out of the file registry (its bytes and region with it). */
  private void forgetFile(Node n) {
    files.remove(n.key.getHfileName(), n.key.getOffset(), n.block.getSerializedLength(), n.data);
  }

  /**
   * Bytes of cached blocks per region (encoded name, from the keys' paths), as the L2 reports
   * them; the combined cache adds them in {@code exclusive} mode, where data blocks live here too.
   */
  public Map<String, Long> regionBytes() {
    return files.regionBytes();
  }

  /**
   * Number of {@code file}'s cached data blocks; the combined cache adds it to the L2's for the
   * fully-cached-files state in {@code exclusive} mode.
   */
  public int dataBlocksOf(String file) {
    return files.dataBlocksOf(file);
  }

  /** Removes an evicted node from the map and the registry; caller holds the lock. */
  private void removeFromIndex(Node n) {
    map.remove(n.key, n);
    forgetFile(n);
  }

  /**
   * Registers a hand-off of {@code evicted} before {@code evictionLock} is released (caller holds
   * it); {@link #handOff} ends it.
   */
  private void beginHandOff(List<Node> evicted) {
    if (!evicted.isEmpty()) {
      handOffs.readLock().lock();
    }
  }

  /**
   * Gives capacity victims to the victim cache with the priority they were cached with, then
   * drops this tier's reference and ends the hand-off {@link #beginHandOff} registered.
   */
  private void handOff(List<Node> evicted) {
    if (evicted.isEmpty()) {
      return;
    }
    try {
      stats.evict();
      BlockCache victim = victimCache;
      for (Node n : evicted) {
        stats.evicted(n.cachedTimeNanos, n.key.isPrimary());
        try {
          if (victim != null) {
            victim.cacheBlock(n.key, n.block, n.inMemory || !n.data);
            stats.handOff();
          }
        } catch (Throwable t) { // the victim cache's failure must not leak the other victims
          unexpected("hand-off of " + n.key, t);
        }
        n.block.release();
      }
    } finally {
      handOffs.readLock().unlock();
    }
  }

  /**
   * Waits until every hand-off of a victim that left the map before this call is in the victim
   * cache (no wait without a victim cache); called after an explicit eviction, holding no lock.
   */
  private void awaitHandOffs() {
    if (victimCache != null) {
      handOffs.writeLock().lock();
      handOffs.writeLock().unlock();
    }
  }

  private void publishSizes() {
    long w = policy.weight();
    if (!recordHits && w >= maxSize / 2) {
      recordHits = true;
    }
    weight = w;
    blockCount = policy.count();
    dataWeight = policy.dataWeight();
    dataBlockCount = policy.dataCount();
  }

  // ---------------------------------------------------------------------------------------------
  // Explicit eviction, resize, shutdown
  // ---------------------------------------------------------------------------------------------

  @Override
  public boolean evictBlock(BlockCacheKey key) {
    Node removed;
    flushWrites();
    evictionLock.lock();
    try {
      removed = removeExplicitly(key);
      publishSizes();
    } finally {
      evictionLock.unlock();
    }
    drainWrites();
    awaitHandOffs();
    if (removed == null) {
      return false;
    }
    removed.block.release();
    return true;
  }

  private Node removeExplicitly(BlockCacheKey key) {
    Node n = map.remove(key);
    if (n != null) {
      policy.remove(n);
      forgetFile(n);
    }
    return n;
  }

  /**
   * Evicts every block of {@code hfileName}; costs O(blocks of that file). Returns once blocks of
   * the file handed to the victim cache before this call are there (see the class comment).
   */
  @Override
  public int evictBlocksByHfileName(String hfileName) {
    return evictBlocksRangeByHfileName(hfileName, 0, Long.MAX_VALUE);
  }

  /**
   * Evicts the blocks of {@code hfileName} at offsets {@code [initOffset, endOffset]}; costs
   * O(blocks of that file). HBase calls it when a split or merge keeps part of a parent file.
   */
  @Override
  public int evictBlocksRangeByHfileName(String hfileName, long initOffset, long endOffset) {
    flushWrites();
    long[] offsets = files.offsets(hfileName);
    if (offsets.length == 0) {
      awaitHandOffs();
      return 0;
    }
    List<Node> removed = new ArrayList<>(offsets.length);
    evictionLock.lock();
    try {
      for (long offset : offsets) {
        if (offset < initOffset || offset > endOffset) {
          continue;
        }
        Node n = removeExplicitly(new BlockCacheKey(hfileName, offset));
        if (n != null) {
          removed.add(n);
        }
      }
      drainReads(); // the file's nodes recorded in a stripe: not kept reachable by it
      publishSizes();
    } finally {
      evictionLock.unlock();
    }
    drainWrites();
    awaitHandOffs();
    for (Node n : removed) {
      n.block.release();
    }
    return removed.size();
  }

  /**
   * Changes the maximum size (HBase's {@code HeapMemoryManager} calls this). Shrinking evicts
   * down to the new size at once, handing victims to the victim cache.
   */
  @Override
  public void setMaxSize(long size) {
    if (size <= 0) {
      throw new IllegalArgumentException(name + ": max size must be positive, got " + size);
    }
    List<Node> evicted = new ArrayList<>();
    flushWrites();
    evictionLock.lock();
    try {
      maxSize = size;
      policy.setMaximum(size);
      policy.evict(evicted);
      for (Node n : evicted) {
        removeFromIndex(n);
      }
      publishSizes();
      beginHandOff(evicted);
    } finally {
      evictionLock.unlock();
    }
    handOff(evicted);
    drainWrites();
  }

  /**
   * With {@code first}, index, bloom and in-memory blocks give way only once no other block is
   * left, as with {@code hbase.lru.rs.inmemoryforcemode=true}, whatever that key says. The
   * combined cache's hot mode sets it: there the L1's data blocks are copies of hot L2 blocks,
   * and a copy must not push out the index and bloom blocks that HBase's placement keeps on
   * heap (measured on the showdown's {@code hbase-64k-3x}: without it, a quarter of the index
   * and bloom reads went to the L2; docs/benchmarks.md). Evicts nothing by itself.
   */
  public void setMemoryFirst(boolean first) {
    evictionLock.lock();
    try {
      policy.setMemoryFirst(first);
    } finally {
      evictionLock.unlock();
    }
    drainWrites();
  }

  @Override
  public void setVictimCache(BlockCache victimCache) {
    if (this.victimCache != null) {
      throw new IllegalArgumentException(name + ": the victim cache has already been set");
    }
    this.victimCache = Objects.requireNonNull(victimCache);
  }

  /**
   * Drops every block and refuses new ones. Safe to call more than once (HBase does). The victim
   * cache is not shut down here: its owner shuts it down.
   */
  @Override
  public void shutdown() {
    List<Node> all;
    Publication published;
    List<Node> queued = new ArrayList<>();
    evictionLock.lock();
    try {
      if (shutdown) {
        return;
      }
      shutdown = true;
      drainReads();
      applyWritesLocked(new ArrayList<>(), queued); // shut down: every queued insert is dropped
      all = new ArrayList<>(map.values());
      for (Node n : all) {
        removeExplicitly(n.key);
      }
      publishSizes();
      published = metrics; // final from here: publishMetrics does nothing once shut down
    } finally {
      evictionLock.unlock();
    }
    for (Node n : all) {
      n.block.release();
    }
    for (Node n : queued) {
      n.block.release();
    }
    drainWrites(); // an insert queued while shutdown held the lock: dropped too
    stats.stop();
    if (published != null) {
      published.stop();
    }
    LOG.info("{} shut down: {}", name, stats);
  }

  /**
   * Registers this L1's metrics source and stats line ({@code l1_*}, tag {@code mode=l1-only};
   * no table metrics): called by {@code TieredRegionServer} when this tier is the whole block
   * cache ({@code hbase.blockcache.class=io.tiercache.lru.LruTier}).
   */
  @Override
  public void publishMetrics(Configuration conf) {
    int interval = CacheSettings.STATS_LOG_INTERVAL.get(conf);
    evictionLock.lock();
    try {
      if (metrics == null && !shutdown) {
        metrics = Publication.start(name, List.of(new LruTierMetrics(this)), null, Map::of,
            Map.of("mode", "l1-only"), interval);
      }
    } finally {
      evictionLock.unlock();
    }
    drainWrites();
  }

  /** The metrics source {@link #publishMetrics} registered, if any. */
  public Optional<TierCacheSource> metricsSource() {
    evictionLock.lock();
    try {
      return metrics == null ? Optional.empty() : metrics.source();
    } finally {
      evictionLock.unlock();
      drainWrites();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sizes, stats, iteration
  // ---------------------------------------------------------------------------------------------

  /** The on-disk size with header of a cached HFile block, as HBase's prefetch asks. */
  @Override
  public Optional<Integer> getBlockSize(BlockCacheKey key) {
    Node n = map.get(key);
    return n != null && n.block instanceof HFileBlock
        ? Optional.of(((HFileBlock) n.block).getOnDiskSizeWithHeader())
        : Optional.empty();
  }

  /**
   * Re-reads the settings that can change at run time ({@link LruConfig#RUNTIME}: the shares,
   * the window, the largest block, the in-memory force mode, the block size hint) and logs what
   * changed. A bad value is rejected with the message it gets at start-up and nothing changes;
   * a changed size setting is logged as taking effect at restart (HBase's HeapMemoryManager
   * resizes the L1 at run time).
   */
  @Override
  public void onConfigurationChange(Configuration conf) {
    try {
      LruConfig next;
      try {
        next = LruConfig.reread(conf, maxSize);
      } catch (SettingException e) {
        LOG.error("{}: configuration change rejected, the current settings stay: {}", name,
            e.getMessage());
        return;
      }
      Configuration before = applied;
      List<String> changed = CacheSettings.changes(before, conf, LruConfig.RUNTIME);
      for (String restart : CacheSettings.changes(before, conf, LruConfig.START_ONLY)) {
        LOG.warn("{}: {} takes effect at restart", name, restart);
      }
      evictionLock.lock();
      try {
        config = next;
        policy.reconfigure(next);
      } finally {
        evictionLock.unlock();
      }
      drainWrites();
      applied = new Configuration(conf);
      if (!changed.isEmpty()) {
        LOG.info("{}: configuration changed: {}", name, String.join("; ", changed));
      }
    } catch (Throwable t) {
      unexpected("onConfigurationChange", t);
    }
  }

  /**
   * Whether the last completed period of requests had inserts under 1 % (see {@link Policy}): hits
   * on PROTECTED and MEMORY blocks are then sampled.
   */
  boolean quiet() {
    return policy.quiet();
  }

  /** The read-buffer stripe {@code thread} records its hits in (for tests). */
  int readStripeOf(Thread thread) {
    return readBuffer.stripeOf(thread.getId());
  }

  /**
   * Recorded hits the policy has applied so far, after draining the read buffer first if
   * {@code drain} (for tests).
   */
  long appliedHits(boolean drain) {
    evictionLock.lock();
    try {
      if (drain) {
        drainReads();
      }
      return policy.accessesApplied();
    } finally {
      evictionLock.unlock();
      drainWrites();
    }
  }

  /**
   * The admission window's current share of the cache: it starts at
   * {@code tiercache.lru.window.percentage} and follows the workload (see {@link Policy}).
   */
  double windowShare() {
    evictionLock.lock();
    try {
      return policy.windowShare();
    } finally {
      evictionLock.unlock();
      drainWrites();
    }
  }

  @Override
  public boolean containsBlock(BlockCacheKey key) {
    return map.containsKey(key) || (queuedWrites.get() > 0 && queuedByKey.containsKey(key));
  }

  @Override
  public TierStats getStats() {
    return stats;
  }

  /** HBase's convention: the capacity. */
  @Override
  public long size() {
    return maxSize;
  }

  @Override
  public long getMaxSize() {
    return maxSize;
  }

  @Override
  public long getFreeSize() {
    return Math.max(0, maxSize - weight);
  }

  /** Heap bytes held: blocks, keys and per-block overhead. */
  @Override
  public long getCurrentSize() {
    return weight;
  }

  @Override
  public long heapSize() {
    return weight;
  }

  @Override
  public long getCurrentDataSize() {
    return dataWeight;
  }

  @Override
  public long getBlockCount() {
    return blockCount;
  }

  @Override
  public long getDataBlockCount() {
    return dataBlockCount;
  }

  /** A weakly consistent view of the cached blocks, for the RegionServer web UI. */
  @Override
  public Iterator<CachedBlock> iterator() {
    Iterator<Node> nodes = map.values().iterator();
    return new Iterator<CachedBlock>() {
      @Override
      public boolean hasNext() {
        return nodes.hasNext();
      }

      @Override
      public CachedBlock next() {
        Node n = nodes.next();
        return new TierBlock(n.key.getHfileName(), n.key.getOffset(), n.block.getBlockType(),
            n.priority(), n.block.heapSize(), n.cachedTimeNanos);
      }
    };
  }

  /** A single tier has no sub-caches; HBase expects null here from a leaf cache. */
  @Override
  public BlockCache[] getBlockCaches() {
    return null;
  }

  @Override
  public void checkInvariants() {
    flushWrites();
    evictionLock.lock();
    try {
      drainReads();
      policy.checkInvariants(map.size());
      if (files.blockCount() != map.size()) {
        throw new IllegalStateException(
            "file registry holds " + files.blockCount() + " blocks, index " + map.size());
      }
      if (weight != policy.weight() || blockCount != map.size()) {
        throw new IllegalStateException("published sizes " + weight + "B/" + blockCount
            + " differ from policy " + policy.weight() + "B/" + policy.count());
      }
      for (Node n : map.values()) {
        // Shared-memory blocks are copied at insert: a pooled or off-heap buffer kept here would
        // pin memory the L1's weight does not count.
        if (n.block instanceof HFileBlock && ((HFileBlock) n.block).isSharedMem()) {
          throw new IllegalStateException("L1 holds shared-memory block " + n.key);
        }
      }
    } finally {
      evictionLock.unlock();
      drainWrites();
    }
  }

  @Override
  public String toString() {
    return name + "[" + config + ", blocks=" + blockCount + ", weight=" + weight + "]";
  }
}
