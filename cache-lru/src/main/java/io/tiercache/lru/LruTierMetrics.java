/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import io.tiercache.core.metrics.Metrics;
import io.tiercache.core.metrics.MetricsOut;
import io.tiercache.core.metrics.TierJson;
import io.tiercache.core.metrics.TierMetrics;

/** The L1's metrics ({@code l1_*} in {@code docs/metrics.md}): every tier's. */
public final class LruTierMetrics implements TierMetrics {
  private final LruTier tier;

  public LruTierMetrics(LruTier tier) {
    this.tier = tier;
  }

  @Override
  public String prefix() {
    return "l1";
  }

  @Override
  public void snapshot(MetricsOut out) {
    TierMetrics.common(tier, "l1", out);
    out.add(Metrics.UNEXPECTED, tier.unexpectedFailures(), "l1");
  }

  /**
   * The L1 in the web UI's JSON view ({@link TierJson}); named by {@code @JsonAdapter} on
   * {@link LruTier}.
   */
  public static final class Json extends TierJson<LruTier> {
    @Override
    protected TierMetrics metricsOf(LruTier tier) {
      return new LruTierMetrics(tier);
    }
  }
}
