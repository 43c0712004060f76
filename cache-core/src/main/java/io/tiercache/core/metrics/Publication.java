/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A cache's metrics as a RegionServer sees them: its metrics2 source ({@link TierCacheSource},
 * JMX) and its periodic stats line ({@link StatsLog}), started and stopped together. Used by
 * every cache a RegionServer can load on its own: the external L2 and an L1 loaded alone
 * through {@code hbase.blockcache.class} (the combined cache keeps its own pair, as a cache built
 * in code has neither).
 *
 * <p>Thread safe: {@link #stop} may race with itself (the first call stops, the others return).
 */
public final class Publication {
  private final TierCacheSource source; // null if the metrics system refused it
  private final StatsLog statsLog;
  private boolean stopped; // guarded by this

  private Publication(TierCacheSource source, StatsLog statsLog) {
    this.source = source;
    this.statsLog = statsLog;
  }

  /**
   * Registers the source (or logs one WARN and goes without) and starts the stats line.
   *
   * @param cacheName names the stats thread
   * @param tables per-table counters, or null for a cache that counts none
   * @param regionBytes cached bytes per encoded region name (read only with {@code tables})
   * @param tags the source's tags ({@code mode}, {@code l2Engine})
   * @param statsIntervalSeconds {@code tiercache.metrics.log.interval}; 0 logs nothing
   */
  public static Publication start(String cacheName, List<TierMetrics> tiers, TableStats tables,
      Supplier<Map<String, Long>> regionBytes, Map<String, String> tags,
      int statsIntervalSeconds) {
    TierCacheSource source = TierCacheSource.registerOrWarn(tiers, tables, regionBytes, tags);
    return new Publication(source, StatsLog.start(cacheName, tiers, statsIntervalSeconds));
  }

  /** The registered source, unless the metrics system refused it. */
  public Optional<TierCacheSource> source() {
    return Optional.ofNullable(source);
  }

  /** Stops the stats line and unregisters the source; idempotent. */
  public void stop() {
    synchronized (this) {
      if (stopped) {
        return;
      }
      stopped = true;
    }
    statsLog.stop();
    if (source != null) {
      source.unregister();
    }
  }
}
