/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.stats.TierStats;
import io.tiercache.core.tier.CacheTier;
import org.apache.hadoop.conf.Configuration;
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
public final class ExternalL2Cache extends ForwardingBlockCache implements CacheTier {
  private static final Logger LOG = LoggerFactory.getLogger(ExternalL2Cache.class);

  /** Builds the L2 from the {@code hbase.bucketcache.*} keys; called by HBase by reflection. */
  public ExternalL2Cache(Configuration conf) {
    super(new BucketTier(conf));
    LOG.info("TierCache ACTIVE as HBase's external L2 block cache (hbase.blockcache.use.external):"
        + " {} of {} bytes under HBase's own L1 (InclusiveCombinedBlockCache)", name(),
        getMaxSize());
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
}
