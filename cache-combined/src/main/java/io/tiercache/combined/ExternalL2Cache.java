/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.bucket.BucketTier;
import io.tiercache.bucket.BucketTierMetrics;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.metrics.Publication;
import io.tiercache.core.metrics.TableStats;
import io.tiercache.core.metrics.TierCacheSource;
import io.tiercache.core.metrics.TierJson;
import io.tiercache.core.metrics.TierMetrics;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hbase.thirdparty.com.google.gson.annotations.JsonAdapter;
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
 * <p>A thin forwarder to a {@link BucketTier} built from the same keys, so that the line above is
 * logged only on this route.
 */
@JsonAdapter(ExternalL2Cache.Json.class) // the web UI's JSON view: the L2's, as for BucketTier
public final class ExternalL2Cache extends ForwardingBlockCache implements CacheTier {
  private static final Logger LOG = LoggerFactory.getLogger(ExternalL2Cache.class);

  private final TableStats tables;
  private final Publication metrics;

  /** Builds the L2 from the {@code hbase.bucketcache.*} keys; called by HBase by reflection. */
  public ExternalL2Cache(Configuration conf) {
    super(new BucketTier(conf));
    this.tables = new TableStats(CacheSettings.METRICS_TABLES_MAX.get(conf), 1 << 16);
    this.metrics = Publication.start(tier().name(), List.of(new BucketTierMetrics(tier())),
        tables, () -> tier().getRegionCachedInfo().orElse(Map.of()),
        Map.of("mode", "external", "l2Engine", tier().engineDescription()),
        CacheSettings.STATS_LOG_INTERVAL.get(conf));
    LOG.info("TierCache ACTIVE as HBase's external L2 block cache (hbase.blockcache.use.external):"
        + " {} of {} bytes under HBase's own L1 (InclusiveCombinedBlockCache)", name(),
        getMaxSize());
  }

  /** Counts the lookup for its table ({@code table_*} metrics), as the combined cache does. */
  @Override
  public Cacheable getBlock(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    Cacheable block = super.getBlock(key, caching, repeat, updateCacheMetrics);
    if (updateCacheMetrics) {
      tables.lookup(key, block != null);
    }
    return block;
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache) {
    tables.cached(key);
    super.cacheBlock(key, buf, inMemory, waitWhenCache);
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory) {
    tables.cached(key);
    super.cacheBlock(key, buf, inMemory);
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf) {
    tables.cached(key);
    super.cacheBlock(key, buf);
  }

  @Override
  public int evictBlocksByHfileName(String hfileName) {
    int n = super.evictBlocksByHfileName(hfileName);
    tables.forgetFile(hfileName);
    return n;
  }

  /** Unregisters the metrics (once) and shuts the tier down. */
  @Override
  public void shutdown() {
    metrics.stop();
    super.shutdown();
  }

  /** The registered metrics source ({@code docs/metrics.md}; {@code mode} is {@code external}). */
  public Optional<TierCacheSource> metricsSource() {
    return metrics.source();
  }

  /** The tier this forwards to. */
  public BucketTier tier() {
    return (BucketTier) delegate();
  }

  /** HBase 3.0's {@code isCacheEnabled} (no {@code @Override}: 2.6 lacks it). */
  public boolean isCacheEnabled() {
    return tier().isCacheEnabled();
  }

  /** HBase 3.0's {@code waitForCacheInitialization}: waits for the background restore. */
  public boolean waitForCacheInitialization(long timeoutMs) {
    return tier().waitForCacheInitialization(timeoutMs);
  }

  @Override
  public String name() {
    return delegate().name();
  }

  @Override
  public TierStats getStats() {
    return delegate().getStats();
  }

  @Override
  public void checkInvariants() {
    delegate().checkInvariants();
  }

  @Override
  public String toString() {
    return "ExternalL2Cache{" + delegate() + "}";
  }

  /** The web UI's JSON view of this cache: its tier's ({@link BucketTierMetrics.Json}). */
  public static final class Json extends TierJson<ExternalL2Cache> {
    @Override
    protected TierMetrics metricsOf(ExternalL2Cache cache) {
      return new BucketTierMetrics(cache.tier());
    }

    @Override
    protected Map<String, String> describe(ExternalL2Cache cache) {
      return new java.util.TreeMap<>(
          Map.of("engine", cache.tier().engineDescription(), "mode", "external"));
    }
  }
}
