/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.bucket.BucketTier;
import io.tiercache.bucket.BucketTierMetrics;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.ConfigReport;
import io.tiercache.core.config.SettingException;

import io.tiercache.core.metrics.Publication;
import io.tiercache.core.metrics.TableStats;
import io.tiercache.core.metrics.TierCacheSource;
import io.tiercache.lru.LruTier;
import io.tiercache.lru.LruTierMetrics;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CombinedBlockCache;
import org.apache.hadoop.hbase.io.hfile.HFileInfo;
import org.apache.hadoop.hbase.util.Pair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TierCache's L1+L2 block cache for a RegionServer: an on-heap {@link LruTier} over an off-heap,
 * file, mmap or pmem {@link BucketTier}. It is an HBase {@link CombinedBlockCache}, so HBase's
 * HeapMemoryManager resizes its L1 and the RegionServer's metrics report the two tiers apart
 * ({@code l1CacheHitRatio}, {@code l2CacheHitRatio}). Configured only by keys
 * ({@code hfile.block.cache.size}, {@code hbase.bucketcache.*}, {@code tiercache.combined.mode}),
 * it is what {@link TieredRegionServer} installs by default.
 *
 * <h2>Implementation notes</h2>
 *
 * <h3>Modes ({@link TieringMode})</h3>
 * <ul>
 *   <li>{@code hbase}: placement, lookups and hit accounting are {@link CombinedBlockCache}'s
 *       own (index and bloom blocks in the L1, data blocks in the L2); this class adds only a
 *       once-only shutdown and an exact {@link #evictBlock}.</li>
 *   <li>{@code exclusive}: {@link #cacheBlock} writes the L1 only. The L1's capacity victims go
 *       to the L2 through {@link Demotion}, the L1's victim hook. A lookup asks the L1, then on a
 *       miss the L2; an L2 hit that passes the {@link PromotionFilter} is cached in the L1 (a
 *       heap copy) and then evicted from the L2, so a block lives in one tier (transiently in
 *       both, never in neither while cached).</li>
 *   <li>{@code inclusive}: {@link #cacheBlock} writes both tiers; an L2 hit that passes the
 *       filter is cached in the L1 and stays in the L2; L1 victims are simply dropped.</li>
 *   <li>{@code hot}: {@code hbase}'s placement; an L2 hit on a data block that passes the filter
 *       and that the L1 would keep ({@link LruTier#wouldAdmit}: no copy is made for the L1 to
 *       throw away) is copied into the L1, whose index and bloom blocks give way to no data copy
 *       ({@link LruTier#setMemoryFirst}); the L1's index and bloom victims go to the L2. Its
 *       promotion
 *       ({@code tiercache.combined.hot.promotion}, {@link HotPromotion}): {@code copy} keeps the
 *       L2 copy and drops the L1's data victims; {@code move} frees the L2 copy once the L1
 *       holds the block, and {@code move-on-hit} at the copy's first L1 hit (found in
 *       {@link PendingMoves}; a copy the L1 throws away unread cost no L2 write, but until then
 *       the block is held twice); both offer the L1's data victims that the L2 no longer holds
 *       back to the L2 through its admission filter. A victim and a concurrent promotion or
 *       first hit may race so that the block leaves both tiers: a lost hit, never wrong
 *       bytes.</li>
 * </ul>
 *
 * <h3>Statistics</h3>
 * {@link #getStats()} returns the one {@code CombinedCacheStats} that HBase's constructor built
 * over the tiers' own {@code TierStats}: the same live object on every call (HBase's metrics call
 * it about 100k times in a short run). In exclusive and inclusive mode a lookup is an L1 request,
 * and an L1 miss is also an L2 request, so the L1 and L2 hit ratios are each tier's own; the
 * combined request count adds both tiers, as HBase's own inclusive combined cache does.
 *
 * <h3>Reference counts</h3>
 * A block returned from either tier holds one reference for the caller. Promotion caches that
 * block in the L1, which keeps its own heap copy (or retains a heap block), before the L2 copy is
 * evicted; a reader still holding the L2 block keeps its slot pinned until it releases.
 *
 * <h3>Concurrency</h3>
 * Thread safe: each tier is; this class keeps no state besides the shutdown flag, the filter
 * and, in exclusive mode, the fully-cached-files state over both tiers ({@link SplitResidency}).
 * A block promoted by two readers at once is cached in the L1 twice (the second replaces the
 * first only if HBase's {@code shouldReplaceExistingCacheBlock} says so).
 *
 * <h3>Size</h3>
 * About 690 lines, over the style guide's 600: the promotion filter, the pending moves, the split
 * residency and the metrics publication already live apart ({@code PromotionFilter},
 * {@link PendingMoves}, {@link SplitResidency}, {@code Publication}); what stays is HBase's whole {@code BlockCache} surface over two tiers,
 * each method deciding per mode which tier answers, and the L1's small victim hand-off.
 */
public class TieredBlockCache extends CombinedBlockCache {
  private static final Logger LOG = LoggerFactory.getLogger(TieredBlockCache.class);
  /** Files whose table the per-table counters remember before they start over. */
  private static final int MAX_TRACKED_FILES = 1 << 16;

  private final LruTier l1;
  private final BucketTier l2;
  private final TieringMode mode;
  /** Hot mode's {@code tiercache.combined.hot.promotion}; {@code COPY} in the other modes. */
  private final HotPromotion hotPromotion;
  /** Hot mode with {@code move} or {@code move-on-hit}: promoted blocks leave the L2. */
  private final boolean hotMove;
  /** The fully-cached-files state over both tiers, exclusive mode only (else null). */
  private final SplitResidency split;
  private final PromotionFilter promotion;
  /** Move-on-hit promotion: copies whose L2 slot is freed at their first L1 hit. */
  private final PendingMoves moves = new PendingMoves();
  private volatile int promoteMinHits;
  private final AtomicBoolean shutdown = new AtomicBoolean();
  private final LongAdder promotions = new LongAdder();
  /** Hot mode: data copies into the L1, L1 hits on them, and the counts at the last batch. */
  private static final int COPY_BATCH = 512;
  private final AtomicLong copies = new AtomicLong();
  private final LongAdder copyHits = new LongAdder();
  private final AtomicLong copyHitsAtBatch = new AtomicLong();
  private final AtomicLong l1RejectedAtBatch = new AtomicLong();
  /** Hot mode: index and bloom blocks the L1 pushed out into the L2, at the last batch too. */
  private final LongAdder metaDemotions = new LongAdder();
  private final AtomicLong metaDemotedAtBatch = new AtomicLong();

  private final TableStats tables;
  private final Publication metrics; // null for a cache built in code

  /**
   * Builds the L1 and the L2 from {@code conf}, the way HBase builds its own combined cache: the
   * L1 from {@code hfile.block.cache.size} (or {@code hfile.block.cache.memory.size}) and the
   * {@code hbase.lru.*} keys, the L2 from the {@code hbase.bucketcache.*} keys, which must name a
   * size; the mode from {@code tiercache.combined.mode}.
   *
   * @throws io.tiercache.core.config.SettingException naming the first bad or missing key
   */
  public TieredBlockCache(Configuration conf) {
    this(Tiers.build(conf), TieringMode.from(conf),
        CacheSettings.COMBINED_PROMOTE_HITS.get(conf), HotPromotion.from(conf), conf);
  }

  /**
   * Composes two tiers built in code; this cache owns them from now on (its shutdown shuts them
   * down). {@code l1} must not have a victim cache yet.
   *
   * @param promoteMinHits L2 hits before a data block moves up (exclusive and inclusive mode)
   *     or is copied up (hot mode, whose promotion is the default of
   *     {@code tiercache.combined.hot.promotion})
   */
  public TieredBlockCache(LruTier l1, BucketTier l2, TieringMode mode, int promoteMinHits) {
    this(l1, l2, mode, promoteMinHits,
        HotPromotion.fromKey(CacheSettings.COMBINED_HOT_PROMOTION.defaultValue()));
  }

  /**
   * As {@link #TieredBlockCache(LruTier, BucketTier, TieringMode, int)}, choosing hot mode's
   * promotion: {@code hotMove} is {@link HotPromotion#MOVE}, else {@link HotPromotion#COPY}.
   */
  public TieredBlockCache(LruTier l1, BucketTier l2, TieringMode mode, int promoteMinHits,
      boolean hotMove) {
    this(l1, l2, mode, promoteMinHits, hotMove ? HotPromotion.MOVE : HotPromotion.COPY);
  }

  /**
   * As {@link #TieredBlockCache(LruTier, BucketTier, TieringMode, int)}, choosing hot mode's
   * promotion ({@code tiercache.combined.hot.promotion}).
   */
  public TieredBlockCache(LruTier l1, BucketTier l2, TieringMode mode, int promoteMinHits,
      HotPromotion hotPromotion) {
    this(new Tiers(l1, l2), mode, CacheSettings.COMBINED_PROMOTE_HITS.check(promoteMinHits),
        hotPromotion, null);
  }

  /**
   * With {@code conf} (the cache a RegionServer builds), registers the metrics source and
   * starts the stats line ({@code tiercache.metrics.*}); a cache built in code has neither
   * (its per-table counters still run, for {@link #tableStats()}).
   */
  private TieredBlockCache(Tiers tiers, TieringMode mode, int promoteMinHits,
      HotPromotion hotPromotion, Configuration conf) {
    super(tiers.l1, tiers.l2);
    this.l1 = tiers.l1;
    this.l2 = tiers.l2;
    this.mode = mode;
    this.hotPromotion = mode == TieringMode.HOT ? hotPromotion : HotPromotion.COPY;
    this.hotMove = this.hotPromotion.moves();
    this.promotion = new PromotionFilter(promoteMinHits, l2.getMaxSize() / (64 * 1024));
    this.promoteMinHits = promoteMinHits;
    this.split = splitsData() ? new SplitResidency(l1, l2) : null;
    if (mode == TieringMode.EXCLUSIVE) {
      l1.setVictimCache(new Demotion(l2, Demotion.ALL, metaDemotions, moves));
    } else if (mode == TieringMode.HOT) {
      l1.setMemoryFirst(true); // a data copy never pushes an index or bloom block out
      l1.setVictimCache(new Demotion(l2, this.hotMove ? Demotion.ADMITTED : Demotion.META_ONLY,
          metaDemotions, moves));
    }
    this.tables = new TableStats(
        conf == null ? CacheSettings.METRICS_TABLES_MAX.defaultValue()
            : CacheSettings.METRICS_TABLES_MAX.get(conf), MAX_TRACKED_FILES);
    this.metrics = conf == null ? null : Publication.start("combined",
        List.of(new LruTierMetrics(l1), new BucketTierMetrics(l2)), tables,
        () -> getRegionCachedInfo().orElse(Map.of()),
        Map.of("mode", mode.key(), "l2Engine", l2.engineDescription()),
        CacheSettings.STATS_LOG_INTERVAL.get(conf));
    LOG.info("TierCache combined cache active: mode={} (tiercache.combined.mode){}, L1 {} of "
        + "{} bytes, L2 {} of {} bytes", mode.key(),
        mode == TieringMode.HOT ? ", promotion=" + this.hotPromotion.key() : "",
        l1.name(), l1.getMaxSize(), l2.name(), l2.getMaxSize());
  }

  /**
   * Whether a data block may live in the L1 only: exclusive mode, and hot mode with
   * {@code move} or {@code move-on-hit} promotion. Then region bytes and the fully-cached-files
   * state count both tiers.
   */
  private boolean splitsData() {
    return mode == TieringMode.EXCLUSIVE || hotMove;
  }

  /**
   * Hot mode: whether a promoted data block's L2 copy is freed ({@code move} or
   * {@code move-on-hit}).
   */
  public boolean hotMove() {
    return hotMove;
  }

  /** Hot mode's promotion ({@code tiercache.combined.hot.promotion}); {@code COPY} otherwise. */
  public HotPromotion hotPromotion() {
    return hotPromotion;
  }

  /** Per-table lookups, hits and the region-to-table map behind the table_ metrics. */
  public TableStats tableStats() {
    return tables;
  }

  /** The registered metrics source, if this cache was built from a configuration. */
  public Optional<TierCacheSource> metricsSource() {
    return metrics == null ? Optional.empty() : metrics.source();
  }

  /** The on-heap L1. */
  public LruTier l1() {
    return l1;
  }

  /** The L2. */
  public BucketTier l2() {
    return l2;
  }

  /** How blocks are shared between the tiers. */
  public TieringMode mode() {
    return mode;
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache) {
    tables.cached(key);
    switch (mode) {
      case EXCLUSIVE:
        l1.cacheBlock(key, buf, inMemory);
        return;
      case INCLUSIVE:
        l1.cacheBlock(key, buf, inMemory);
        l2.cacheBlock(key, buf, inMemory, waitWhenCache);
        return;
      default: // HBASE, HOT: index and bloom blocks in the L1, data blocks in the L2
        super.cacheBlock(key, buf, inMemory, waitWhenCache);
    }
  }

  @Override
  public Cacheable getBlock(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    Cacheable block = lookup(key, caching, repeat, updateCacheMetrics);
    if (updateCacheMetrics) {
      tables.lookup(key, block != null);
    }
    return block;
  }

  private Cacheable lookup(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    if (mode == TieringMode.HBASE) {
      return super.getBlock(key, caching, repeat, updateCacheMetrics);
    }
    if (mode == TieringMode.HOT) {
      return getHot(key, caching, repeat, updateCacheMetrics);
    }
    Cacheable block = l1.getBlock(key, caching, repeat, updateCacheMetrics);
    if (block != null) {
      return block;
    }
    block = l2.getBlock(key, caching, repeat, updateCacheMetrics);
    if (block != null && caching && !repeat && !shutdown.get()
        && promotion.recordHit(key, isMetaBlock(blockType(key, block)))) {
      promote(key, block);
      promotions.increment();
    }
    return block;
  }

  /**
   * Hot mode's lookup, with HBase's accounting: the L1 if it holds the key, else the L2; a hit
   * counts in the tier that served it, a miss in the tier the block type belongs to (index and
   * bloom: the L1; data: the L2). An L2 hit on a data block that passes the promotion rule, and
   * that the L1 says it would keep, is then copied into the L1; its L2 copy is freed at once
   * ({@code move}), at the L1 copy's first hit ({@code move-on-hit}) or never ({@code copy}).
   * Unlike
   * {@link CombinedBlockCache#getBlock}, an index or bloom block found in the L2 (where hot mode
   * demotes the L1's index and bloom victims) is an expected hit, not a warning; it stays in the
   * L2 (served zero-copy from there) until it is missed and cached anew.
   */
  private Cacheable getHot(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    Cacheable inL1 = l1.getIfPresent(key, caching, updateCacheMetrics);
    if (inL1 != null) {
      if (!isMetaBlock(blockType(key, inL1))) {
        copyHits.increment();
        if (hotPromotion == HotPromotion.MOVE_ON_HIT && caching && !repeat
            && moves.firstHit(key)) {
          // Move on hit: the copy earned its first L1 hit, so the L1 keeps it; its L2 slot is
          // freed (a reader of the L2 block keeps the slot pinned until it releases). Later hits
          // find nothing to move: one on-heap set lookup, not a look into the L2's off-heap
          // index (JFR, hbase-64k-3x: that look was 5 % of the readers' samples at 0.6 L1 data
          // hits per operation).
          l2.evictBlock(key);
        }
      }
      return inL1;
    }
    Cacheable block = l2.getBlock(key, caching, repeat, false);
    BlockType type = block != null ? blockType(key, block) : key.getBlockType();
    boolean meta = isMetaBlock(type);
    if (updateCacheMetrics) {
      CacheStats stats = block != null || !meta ? l2.getStats() : l1.getStats();
      if (block != null) {
        stats.hit(caching, key.isPrimary(), type);
      } else if (!repeat) {
        // As HBase's tiers count: HFileReaderImpl looks a missed block up again under its
        // offset lock (repeat), and that second miss is the same read's. Counting it halved
        // the L2 hit ratio real HBase reported (real-hbase: 13.6 % for 24 % of blocks held).
        stats.miss(caching, key.isPrimary(), type);
      }
    }
    // An index or bloom block stays where the L1's demotion hook put it: moving it back would
    // push another out, and on a meta set larger than the L1 every hit would move 64 KB twice.
    if (block != null && !meta && caching && !repeat && !shutdown.get()
        && promotion.recordHit(key, false) && l1.wouldAdmit(key, block.heapSize())) {
      boolean onHit = hotPromotion == HotPromotion.MOVE_ON_HIT;
      if (onHit) {
        moves.promoted(key);
      }
      // Never waits for the L1's lock: the block is served from the L2 already, and a copy
      // skipped now is tried again at its next L2 hit.
      if (l1.cacheBlockIfIdle(key, block, hotMove && l2.isInMemory(key))) {
        if (hotPromotion == HotPromotion.MOVE && l1.containsBlock(key)) {
          // Move: the L1 holds it now, so its L2 slot is freed at once (a reader of the L2
          // block keeps the slot pinned until it releases). Freed only at the copy's first L1
          // hit, as move-on-hit does, every copy not yet hit is held twice: 67 of the L1's 406
          // blocks at the end of a uniform-64k-3x +500 us run, 0.13 to 1.18 points of hit ratio
          // in the uniform cells (docs/benchmarks.md).
          l2.evictBlock(key);
        }
        adaptCopies();
        promotions.increment();
      } else if (onHit) {
        moves.left(key);
      }
    }
    return block;
  }

  /**
   * Every {@link #COPY_BATCH} data copies, tells the promotion filter how many L1 hits on data
   * blocks (in hot mode: hits on copies) there were meanwhile and how many blocks the L1's
   * admission rejected (in hot mode only copies take part in its frequency duel), so the bar
   * rises while copies do not pay for themselves.
   */
  private void adaptCopies() {
    if (copies.incrementAndGet() % COPY_BATCH != 0) {
      return;
    }
    long hits = copyHits.sum();
    long rejected = l1.getStats().admissionRejected();
    long demoted = metaDemotions.sum();
    promotion.feedback(COPY_BATCH, hits - copyHitsAtBatch.getAndSet(hits),
        rejected - l1RejectedAtBatch.getAndSet(rejected),
        demoted - metaDemotedAtBatch.getAndSet(demoted));
  }

  /** L2 hits copied or moved into the L1 since start. */
  public long promotions() {
    return promotions.sum();
  }

  /** The L2 hits a data block needs now before it moves or is copied up (hot mode adapts it). */
  public int promotionBar() {
    return promotion.bar();
  }

  /**
   * The lookup HBase 3.0 adds with a known block type. It is a {@code CombinedBlockCache} method
   * on 3.0 that sends data blocks straight to the L2, which would bypass the exclusive and
   * inclusive modes; declared here without {@code @Override} (2.6 has no such method), it
   * overrides that one on 3.0 and routes like every other lookup.
   */
  public Cacheable getBlock(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics, BlockType blockType) {
    return getBlock(key, caching, repeat, updateCacheMetrics);
  }

  private static BlockType blockType(BlockCacheKey key, Cacheable block) {
    return key.getBlockType() != null ? key.getBlockType() : block.getBlockType();
  }

  /**
   * Moves (exclusive) or copies (inclusive) an L2 hit into the L1, with the in-memory priority
   * it had in the L2 (an {@code IN_MEMORY} family's data block stays in-memory).
   */
  private void promote(BlockCacheKey key, Cacheable block) {
    l1.cacheBlock(key, block, l2.isInMemory(key));
    if (mode == TieringMode.EXCLUSIVE && l1.containsBlock(key)) {
      l2.evictBlock(key);
    }
  }

  /**
   * Whether the block is cached: held by the L1, or written to the L2 (a block still queued for
   * the L2 is not, as HBase's BucketCache answers). HBase's own combined cache asks only the L2
   * when the L1 has no opinion, which would call an L1 block uncached in exclusive mode.
   */
  @Override
  public Optional<Boolean> isAlreadyCached(BlockCacheKey key) {
    return l1.containsBlock(key) ? Optional.of(true) : l2.isAlreadyCached(key);
  }

  /** Evicts the block from both tiers (a block may be in both in exclusive and inclusive mode). */
  @Override
  public boolean evictBlock(BlockCacheKey key) {
    moves.left(key);
    boolean fromL1 = l1.evictBlock(key);
    boolean fromL2 = l2.evictBlock(key);
    return fromL1 || fromL2;
  }

  /**
   * Bytes of cached blocks per region: the L2's, as HBase's combined cache reports, plus in
   * {@code exclusive} mode the L1's (there a hot data block lives in the L1 only).
   */
  /** Evicts the file's blocks from both tiers and forgets the file's table entry. */
  @Override
  public int evictBlocksByHfileName(String hfileName) {
    int n = super.evictBlocksByHfileName(hfileName);
    tables.forgetFile(hfileName);
    return n;
  }

  @Override
  public Optional<Map<String, Long>> getRegionCachedInfo() {
    Map<String, Long> l2Bytes = l2.getRegionCachedInfo().orElse(Map.of());
    if (!splitsData()) {
      return Optional.of(l2Bytes);
    }
    Map<String, Long> sum = new HashMap<>(l2Bytes);
    l1.regionBytes().forEach((region, bytes) -> sum.merge(region, bytes, Long::sum));
    return Optional.of(Collections.unmodifiableMap(sum));
  }

  /**
   * Prefetch has cached {@code file}: the L2 records it (and learns the file's region, as HBase's
   * combined cache does), and in {@code exclusive} mode, where the file's data blocks are split
   * between the tiers, so does {@link SplitResidency}, which counts both tiers.
   */
  @Override
  public void notifyFileCachingCompleted(Path file, int totalBlockCount, int dataBlockCount,
      long size) {
    l2.notifyFileCachingCompleted(file, totalBlockCount, dataBlockCount, size);
    if (split != null) {
      try {
        split.completed(file, dataBlockCount, size);
      } catch (Throwable t) {
        LOG.warn("notifyFileCachingCompleted of {} failed; the file is not listed", file, t);
      }
    }
  }

  /**
   * Files prefetch cached completely and still held: the L2's state, or in {@code exclusive}
   * mode the blocks of both tiers together ({@link SplitResidency}).
   */
  @Override
  public Optional<Map<String, Pair<String, Long>>> getFullyCachedFiles() {
    return split == null ? l2.getFullyCachedFiles() : Optional.of(split.fullyCached());
  }

  /**
   * HBase's answer (not cold under data tiering, not already fully cached), with "fully cached"
   * counting both tiers in {@code exclusive} mode.
   */
  @Override
  public Optional<Boolean> shouldCacheFile(HFileInfo info, Configuration conf) {
    Optional<Boolean> l2Answer = l2.shouldCacheFile(info, conf);
    if (split == null || !l2Answer.orElse(true)) {
      return l2Answer;
    }
    return Optional.of(!split.isComplete(info.getHFileContext().getHFileName()));
  }

  /**
   * HBase 3.0's {@code BlockCache#isCacheEnabled} (no {@code @Override}: 2.6 lacks it): not shut
   * down, and the L2 enabled (the L1 always is). An L2 still restoring is enabled: it serves what
   * it has restored.
   */
  public boolean isCacheEnabled() {
    return !shutdown.get() && l2.isCacheEnabled();
  }

  /**
   * HBase 3.0's {@code BlockCache#waitForCacheInitialization} (no {@code @Override}): waits up to
   * {@code timeoutMs} for the L2's background restore (the L1 has none); whether the cache is
   * then restored and enabled.
   */
  public boolean waitForCacheInitialization(long timeoutMs) {
    return l2.waitForCacheInitialization(timeoutMs) && isCacheEnabled();
  }

  @Override
  public CacheStats getStats() {
    return combinedCacheStats;
  }

  /** Shuts both tiers down, once; HBase may call it more than once. */
  @Override
  public void shutdown() {
    if (!shutdown.compareAndSet(false, true)) {
      return;
    }
    LOG.info("TierCache combined cache shutting down: {}", this);
    try {
      if (metrics != null) {
        metrics.stop();
      }
    } catch (RuntimeException e) {
      LOG.warn("TierCache combined cache: unregistering its metrics failed", e);
    }
    try {
      l1.shutdown();
    } finally {
      l2.shutdown();
    }
  }

  /**
   * Passes an online configuration change ({@code Admin#updateConfiguration}; the
   * RegionServer registers this cache as an observer) to both tiers, and re-reads
   * {@code tiercache.combined.promote.min.hits}. A bad value is rejected with its start-up
   * message and the current one stays; a changed mode takes effect at restart.
   */
  @Override
  public void onConfigurationChange(Configuration conf) {
    l1.onConfigurationChange(conf);
    l2.onConfigurationChange(conf);
    try {
      int hits = CacheSettings.COMBINED_PROMOTE_HITS.get(conf);
      if (hits != promoteMinHits) {
        LOG.info("TierCache combined cache: {}: {} -> {}",
            CacheSettings.COMBINED_PROMOTE_HITS.key(), promoteMinHits, hits);
        promotion.setMinHits(hits);
        promoteMinHits = hits;
      }
      TieringMode next = TieringMode.from(conf);
      if (next != mode) {
        LOG.warn("TierCache combined cache: {}: {} -> {} takes effect at restart",
            CacheSettings.COMBINED_MODE.key(), mode.key(), next.key());
      }
    } catch (SettingException e) {
      LOG.error("TierCache combined cache: configuration change rejected, the current settings "
          + "stay: {}", e.getMessage());
    } catch (Throwable t) {
      LOG.error("TierCache combined cache: configuration change failed", t);
    }
  }

  /** Checks both tiers' invariants (tests). */
  public void checkInvariants() {
    l1.checkInvariants();
    l2.checkInvariants();
  }

  @Override
  public String toString() {
    return "TieredBlockCache{mode=" + mode.key() + ", l1=" + l1.getStats() + ", l2="
        + l2.getStats() + "}";
  }

  /** The two tiers, built in an order that frees the first if the second fails. */
  private static final class Tiers {
    final LruTier l1;
    final BucketTier l2;

    Tiers(LruTier l1, BucketTier l2) {
      this.l1 = l1;
      this.l2 = l2;
    }

    static Tiers build(Configuration conf) {
      ConfigReport.logOnce(conf); // before any check: a typo is reported with the failure
      TieringMode.from(conf);
      CacheSettings.COMBINED_PROMOTE_HITS.get(conf);
      CacheSettings.COMBINED_HOT_PROMOTION.get(conf);
      if (!CacheSettings.L2_SIZE.isSet(conf)) {
        throw new io.tiercache.core.config.SettingException(CacheSettings.L2_SIZE.key(),
            "is not set; TieredBlockCache needs an L2 (" + CacheSettings.L2_SIZE.range()
                + "). For an L1-only cache set hbase.blockcache.class=" + LruTier.class.getName());
      }
      LruTier l1 = new LruTier(conf);
      try {
        return new Tiers(l1, new BucketTier(conf));
      } catch (RuntimeException e) {
        l1.shutdown();
        throw e;
      }
    }
  }

  /**
   * The L1's victim hook: in exclusive mode every capacity victim is written to the L2; in hot
   * mode only index and bloom victims are (a data block in the L1 is a copy of an L2 block, so it
   * is simply dropped). Lookups go through {@link TieredBlockCache#getBlock}, never through the
   * L1's victim path, so {@link #getBlock} answers null, and the combined cache shuts the L2 down
   * itself.
   */
  private static final class Demotion extends ForwardingBlockCache {
    /** Exclusive mode: every victim is written, past the L2's admission filter. */
    static final int ALL = 0;
    /** Hot mode, copy promotion: index and bloom victims only (data victims are L2 copies). */
    static final int META_ONLY = 1;
    /** Hot mode, move promotion: index and bloom victims, and data victims the L2 admits. */
    static final int ADMITTED = 2;

    private final BucketTier l2;
    private final int which;
    private final LongAdder metaDemotions;
    private final PendingMoves moves;

    Demotion(BucketTier l2, int which, LongAdder metaDemotions, PendingMoves moves) {
      super(l2);
      this.l2 = l2;
      this.which = which;
      this.metaDemotions = metaDemotions;
      this.moves = moves;
    }

    /**
     * Exclusive mode: every victim, past the L2's admission filter (the L1's filter admitted it,
     * and the L2's sketch never saw its L1 hits). Hot mode: index and bloom victims, which the L2
     * always admits; with move promotion also data victims, which are in the L1 only and go back
     * through the L2's admission filter like any new block (a block promoted after its L2 hits
     * usually beats a CLOCK victim; one that does not is dropped without a write).
     */
    @Override
    public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory) {
      if (which == ALL) {
        l2.cacheDemoted(key, buf, inMemory);
      } else if (isMetaBlock(buf.getBlockType())) {
        metaDemotions.increment();
        super.cacheBlock(key, buf, inMemory);
      } else if (which == ADMITTED) {
        moves.left(key);
        if (!l2.isAlreadyCached(key).orElse(false)) {
          super.cacheBlock(key, buf, inMemory);
        }
      }
    }

    @Override
    public Cacheable getBlock(BlockCacheKey key, boolean caching, boolean repeat,
        boolean updateCacheMetrics) {
      return null;
    }

    @Override
    public void shutdown() {
      // The combined cache shuts the L2 down.
    }
  }
}
