/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import java.util.Iterator;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TierCache's L2 as HBase's "external" block cache, for operators who keep HBase's own
 * RegionServer and L1:
 * <pre>
 *   hbase.blockcache.use.external   = true
 *   hbase.blockcache.external.class = io.tiercache.combined.ExternalL2Cache
 *   hbase.bucketcache.size          = 16384        (and the other hbase.bucketcache.* keys)
 * </pre>
 * HBase then wraps it under its LruBlockCache in an {@code InclusiveCombinedBlockCache}: the L2 is
 * asked only on L1 misses, its hits are copied back to the L1, L1 evictions are written to it,
 * and {@code shutdown()} and {@code evictBlocksByHfileName()} arrive twice (both are idempotent
 * here). <b>Caveat:</b> HBase 2.6 ignores these keys silently unless a class named
 * {@code org.apache.hadoop.hbase.io.hfile.MemcachedBlockCache} (module
 * {@code hbase-external-blockcache}, shipped in HBase's binary tarball) is on the classpath; so
 * this class logs one loud line when HBase builds it, and its absence from the log means the
 * route is not active. docs/install.md has the details.
 *
 * <p>A thin delegate to a {@link BucketTier} built from the same keys, so that the line above is
 * logged only on this route.
 */
public final class ExternalL2Cache implements CacheTier {
  private static final Logger LOG = LoggerFactory.getLogger(ExternalL2Cache.class);

  private final BucketTier l2;

  /** Builds the L2 from the {@code hbase.bucketcache.*} keys; called by HBase by reflection. */
  public ExternalL2Cache(Configuration conf) {
    this.l2 = new BucketTier(conf);
    LOG.warn("TierCache ACTIVE as HBase's external L2 block cache (hbase.blockcache.use.external):"
        + " {} of {} bytes under HBase's own L1 (InclusiveCombinedBlockCache)", l2.name(),
        l2.getMaxSize());
  }

  /** The tier this delegates to. */
  public BucketTier tier() {
    return l2;
  }

  @Override
  public String name() {
    return l2.name();
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory) {
    l2.cacheBlock(key, buf, inMemory);
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache) {
    l2.cacheBlock(key, buf, inMemory, waitWhenCache);
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf) {
    l2.cacheBlock(key, buf);
  }

  @Override
  public Cacheable getBlock(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    return l2.getBlock(key, caching, repeat, updateCacheMetrics);
  }

  @Override
  public Optional<Boolean> isAlreadyCached(BlockCacheKey key) {
    return l2.isAlreadyCached(key);
  }

  @Override
  public boolean evictBlock(BlockCacheKey key) {
    return l2.evictBlock(key);
  }

  @Override
  public int evictBlocksByHfileName(String hfileName) {
    return l2.evictBlocksByHfileName(hfileName);
  }

  @Override
  public TierStats getStats() {
    return l2.getStats();
  }

  @Override
  public void shutdown() {
    l2.shutdown();
  }

  @Override
  public long size() {
    return l2.size();
  }

  @Override
  public long getMaxSize() {
    return l2.getMaxSize();
  }

  @Override
  public long getFreeSize() {
    return l2.getFreeSize();
  }

  @Override
  public long getCurrentSize() {
    return l2.getCurrentSize();
  }

  @Override
  public long getCurrentDataSize() {
    return l2.getCurrentDataSize();
  }

  @Override
  public long getBlockCount() {
    return l2.getBlockCount();
  }

  @Override
  public long getDataBlockCount() {
    return l2.getDataBlockCount();
  }

  @Override
  public Iterator<CachedBlock> iterator() {
    return l2.iterator();
  }

  @Override
  public BlockCache[] getBlockCaches() {
    return l2.getBlockCaches();
  }

  @Override
  public void checkInvariants() {
    l2.checkInvariants();
  }

  @Override
  public String toString() {
    return "ExternalL2Cache{" + l2 + "}";
  }
}
