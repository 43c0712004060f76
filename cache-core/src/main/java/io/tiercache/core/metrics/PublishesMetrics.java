/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import org.apache.hadoop.conf.Configuration;

/**
 * A tier that can be a RegionServer's whole block cache ({@code hbase.blockcache.class}) and then
 * publishes its own metrics: the loader ({@code TieredRegionServer}) calls
 * {@link #publishMetrics} once after building it. A tier inside a combined cache is never asked
 * (the combined cache publishes both tiers under one source), so building a tier registers
 * nothing by itself.
 */
public interface PublishesMetrics {
  /**
   * Registers the metrics source ({@code sub=TierCache}) and starts the stats line
   * ({@code tiercache.metrics.log.interval} in {@code conf}); undone by the tier's shutdown. A
   * second call, or a call after shutdown, does nothing. Never throws for a metrics fault (one
   * WARN, the tier runs without).
   */
  void publishMetrics(Configuration conf);
}
