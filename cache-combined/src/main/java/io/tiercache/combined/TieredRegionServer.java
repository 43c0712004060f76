/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.metrics.TableStats;
import java.io.IOException;
import java.lang.reflect.Field;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.security.User;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RegionServer whose block cache is TierCache's (or any cache named by
 * {@code hbase.blockcache.class}), loaded with {@code hbase.regionserver.impl}:
 * <pre>
 *   hbase.regionserver.impl = io.tiercache.combined.TieredRegionServer
 *   hbase.blockcache.class  = io.tiercache.combined.TieredBlockCache   (the default)
 * </pre>
 *
 * <h2>Implementation notes</h2>
 * HBase 2.6's {@code HRegionServer} builds its block cache inside its constructor into the
 * private field {@code blockCache}, and three paths read that field directly (the
 * HeapMemoryManager's start, {@code clearRegionBlockCache} behind {@code Admin.clearBlockCache},
 * and the shutdown in {@code run()}); overriding {@code getBlockCache()} would miss them. So:
 * <ol>
 *   <li>Before {@code super(conf)} runs, {@link #prepare} builds the configured cache from the
 *       operator's configuration, so a bad class or setting stops the RegionServer before it
 *       binds a port or allocates anything else, and hands HBase a copy of the configuration
 *       without {@code hbase.bucketcache.ioengine} and with {@code hbase.blockcache.use.external}
 *       off: HBase then builds only its on-heap L1, which allocates nothing up front, and never
 *       a second off-heap L2 (the {@code hbase.bucketcache.*} keys configure TierCache's L2).</li>
 *   <li>Right after {@code super(conf)}, before any region can open (regions open only after the
 *       RegionServer reports for duty in {@code run()}), the field is replaced by our cache and
 *       HBase's unused L1 is shut down. Every consumer (regions' {@code CacheConfig}, metrics,
 *       HeapMemoryManager, {@code clearBlockCache}, shutdown) then sees our cache.</li>
 * </ol>
 * The cache built in step 1 travels to step 2 in a thread local: a constructor cannot keep a
 * value across its {@code super} call otherwise. If {@code super(conf)} itself throws (say, the
 * RPC port is taken), Java gives a subclass no way to intercept it and the cache built in step 1
 * is not shut down; the RegionServer process exits in that case.
 *
 * <p>The HBase 3.0 RegionServer builds its cache the same way (field {@code blockCache} in
 * {@code HRegionServer}); see docs/architecture.md.
 */
public class TieredRegionServer extends HRegionServer {
  private static final Logger LOG = LoggerFactory.getLogger(TieredRegionServer.class);
  private static final ThreadLocal<BlockCache> PREPARED = new ThreadLocal<>();

  public TieredRegionServer(Configuration conf) throws IOException {
    super(prepare(conf));
    BlockCache ours = PREPARED.get();
    PREPARED.remove();
    install(ours);
  }

  /**
   * Stops the RegionServer; once it is really stopping (no coprocessor vetoed it), a persistent
   * L2 keeps the blocks of the regions it now closes, as HBase does for a persistent BucketCache
   * on a graceful stop ({@code HRegion#close} only recognises HBase's own class).
   */
  @Override
  public void stop(String msg, boolean force, User user) {
    super.stop(msg, force, user);
    BlockCache cache = getBlockCache().orElse(null);
    if (isStopped() && cache instanceof TieredBlockCache) {
      ((TieredBlockCache) cache).l2().keepFilesOnClose();
    }
  }

  /** Builds our cache (step 1); returns the configuration HBase's constructor gets. */
  private static Configuration prepare(Configuration conf) {
    PREPARED.remove();
    BlockCache cache = BlockCacheLoader.create(conf);
    PREPARED.set(cache);
    if (conf.get(HConstants.BUCKET_CACHE_IOENGINE_KEY) != null
        && !(cache instanceof org.apache.hadoop.hbase.io.hfile.CombinedBlockCache)) {
      LOG.warn("{} is set, but {}={} has no L2: the hbase.bucketcache.* keys are not used",
          HConstants.BUCKET_CACHE_IOENGINE_KEY, CacheSettings.BLOCKCACHE_CLASS.key(),
          cache.getClass().getName());
    }
    Configuration forHBase = new Configuration(conf);
    forHBase.unset(HConstants.BUCKET_CACHE_IOENGINE_KEY);
    if (conf.getBoolean("hbase.blockcache.use.external", false)) {
      LOG.warn("hbase.blockcache.use.external=true is ignored: {} installs {} itself",
          TieredRegionServer.class.getSimpleName(), cache.getClass().getName());
      forHBase.setBoolean("hbase.blockcache.use.external", false);
    }
    return forHBase;
  }

  /**
   * The table of an online region, as metric names carry it, or null if it is not online: what
   * the combined cache's per-table metrics ask for HBase 3.0's keys.
   */
  String tableOfRegion(String encodedRegionName) {
    HRegion region = getRegion(encodedRegionName);
    return region == null ? null : TableStats.nameOf(region.getRegionInfo().getTable());
  }

  /** Replaces HBase's cache with ours (step 2) and shuts HBase's down. */
  private void install(BlockCache ours) throws IOException {
    BlockCache hbaseOwn;
    try {
      Field field = HRegionServer.class.getDeclaredField("blockCache");
      field.setAccessible(true);
      hbaseOwn = (BlockCache) field.get(this);
      field.set(this, ours);
    } catch (ReflectiveOperationException | RuntimeException e) {
      ours.shutdown();
      throw new IOException("This HBase version's HRegionServer has no private field "
          + "'blockCache' TierCache can set; " + TieredRegionServer.class.getName()
          + " supports HBase 2.6", e);
    }
    if (hbaseOwn != null) {
      hbaseOwn.shutdown();
    }
    // HBase 2.6 registers no block cache for online configuration changes; ours is.
    getConfigurationManager().registerObserver(ours);
    if (ours instanceof TieredBlockCache) {
      // HBase 3.0's keys name their region instead of their file's path: the table is asked here
      ((TieredBlockCache) ours).tableStats().resolveRegionsWith(this::tableOfRegion);
    }
    LOG.info("TierCache installed the RegionServer block cache {} ({}={}); HBase's own {} was "
        + "never used and is shut down", ours, CacheSettings.BLOCKCACHE_CLASS.key(),
        ours.getClass().getName(), hbaseOwn == null ? "cache" : hbaseOwn.getClass().getSimpleName());
  }
}
