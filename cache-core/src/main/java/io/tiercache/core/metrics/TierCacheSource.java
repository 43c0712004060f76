/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.metrics.BaseSourceImpl;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystemHelper;
import org.apache.hadoop.metrics2.lib.Interns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TierCache's Hadoop metrics2 source: every tier's metrics, the per-table ones, and two tags
 * ({@code mode}, {@code l2Engine}), registered in HBase's metrics system the way HBase registers
 * its {@code MetricsRegionServerSource} ({@link BaseSourceImpl}), so they appear in the
 * RegionServer's JMX as {@value #JMX_PREFIX}{@value #NAME} beside HBase's
 * ({@code sub=Server}, {@code sub=IO}, ...) and in every configured metrics2 sink.
 *
 * <p>Values are read when the metrics system or a JMX client asks (pull): nothing is recorded
 * on the cache's hot path for this source (per-table counting is {@link TableStats}'s).
 *
 * <h2>Several caches in one JVM</h2>
 * Tests (and a mini-cluster's several RegionServers) may run several caches: the first
 * registered takes {@code sub=TierCache}, the next {@code sub=TierCache-2} and so on;
 * {@link #unregister} frees the name for the next cache. Names are handed out under the class
 * lock.
 */
public final class TierCacheSource extends BaseSourceImpl {
  private static final Logger LOG = LoggerFactory.getLogger(TierCacheSource.class);

  /** The metrics2 record and JMX {@code sub=} name of the first cache in a JVM. */
  public static final String NAME = "TierCache";
  /** The JMX object name up to the {@code sub=} value. */
  public static final String JMX_PREFIX = "Hadoop:service=HBase,name=RegionServer,sub=";
  private static final String CONTEXT = "regionserver";
  private static final Set<String> IN_USE = new HashSet<>(); // guarded by the class

  /**
   * What a source reports. The base constructor registers the source, and the metrics system
   * builds the JMX attribute list from a first snapshot right then (and keeps it for its cache
   * TTL), before this class's fields are set: so the parts under construction are handed over
   * through {@link #CONSTRUCTING} on the registering thread.
   */
  private static final class Parts {
    final List<TierMetrics> tiers;
    final TableStats tables;
    final Supplier<Map<String, Long>> regionBytes;
    final Map<String, String> tags;

    Parts(List<TierMetrics> tiers, TableStats tables, Supplier<Map<String, Long>> regionBytes,
        Map<String, String> tags) {
      this.tiers = List.copyOf(tiers);
      this.tables = tables;
      this.regionBytes = regionBytes;
      this.tags = Map.copyOf(tags);
    }
  }

  private static final ThreadLocal<Parts> CONSTRUCTING = new ThreadLocal<>();

  private final String name;
  private final Parts parts;
  private boolean registered = true; // guarded by the class

  private TierCacheSource(String name) {
    super(name, "TierCache block cache: every tier's and table's figures", CONTEXT,
        "RegionServer,sub=" + name);
    this.name = name;
    this.parts = CONSTRUCTING.get();
  }

  /**
   * Registers a source over {@code tiers} and {@code tables} in HBase's metrics system (started
   * as HBase starts it if it is not yet).
   *
   * @param regionBytes cached bytes per encoded region name (the cache's
   *     {@code getRegionCachedInfo})
   * @param tags fixed text shown with the record, e.g. the mode and the L2's engine
   */
  public static TierCacheSource register(List<TierMetrics> tiers, TableStats tables,
      Supplier<Map<String, Long>> regionBytes, Map<String, String> tags) {
    String name;
    synchronized (TierCacheSource.class) {
      name = NAME;
      for (int i = 2; IN_USE.contains(name); i++) {
        name = NAME + "-" + i;
      }
      IN_USE.add(name);
    }
    CONSTRUCTING.set(new Parts(tiers, tables, regionBytes, tags));
    try {
      TierCacheSource s = new TierCacheSource(name);
      LOG.info("TierCache metrics registered as {}{}", JMX_PREFIX, name);
      return s;
    } catch (RuntimeException | Error e) {
      synchronized (TierCacheSource.class) {
        IN_USE.remove(name);
      }
      throw e;
    } finally {
      CONSTRUCTING.remove();
    }
  }

  /**
   * {@link #register}, or null with one WARN if the metrics system refuses: a cache without
   * metrics still serves, so a metrics fault must not stop the RegionServer.
   */
  public static TierCacheSource registerOrWarn(List<TierMetrics> tiers, TableStats tables,
      Supplier<Map<String, Long>> regionBytes, Map<String, String> tags) {
    try {
      return register(tiers, tables, regionBytes, tags);
    } catch (RuntimeException | LinkageError e) {
      LOG.warn("TierCache metrics could not be registered; the cache runs without them", e);
      return null;
    }
  }

  /** The {@code sub=} name this source has in JMX. */
  public String name() {
    return name;
  }

  /** The full JMX object name. */
  public String objectName() {
    return JMX_PREFIX + name;
  }

  /** Removes this source from the metrics system and JMX, and frees its name; idempotent. */
  public void unregister() {
    synchronized (TierCacheSource.class) {
      if (!registered) {
        return;
      }
      registered = false;
      try {
        DefaultMetricsSystem.instance().unregisterSource(getMetricsJmxContext());
        DefaultMetricsSystemHelper helper = new DefaultMetricsSystemHelper();
        helper.removeSourceName(getMetricsJmxContext());
        helper.removeObjectName(objectName());
        MetricRegistries.global().remove(getMetricRegistryInfo());
      } finally {
        IN_USE.remove(name);
      }
    }
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    MetricsRecordBuilder record = collector.addRecord(NAME).setContext(CONTEXT);
    Parts p = parts();
    if (p == null) {
      return;
    }
    p.tags.forEach((k, v) -> record.tag(Interns.info(k, "TierCache " + k), v));
    snapshot(MetricsOut.to(record));
  }

  /** Writes every metric of this source to {@code out} (JMX, the stats line, tests). */
  public void snapshot(MetricsOut out) {
    Parts p = parts();
    if (p == null) {
      return;
    }
    for (TierMetrics t : p.tiers) {
      t.snapshot(out);
    }
    if (p.tables != null) {
      p.tables.snapshot(p.regionBytes.get(), out);
    }
  }

  /** The parts, also while the base constructor registers this source (see {@link Parts}). */
  private Parts parts() {
    Parts p = parts;
    return p != null ? p : CONSTRUCTING.get();
  }
}
