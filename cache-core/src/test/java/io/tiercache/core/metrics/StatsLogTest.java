/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StatsLogTest {
  /** A tier whose hits, requests and size a test sets. */
  static final class FakeTier implements TierMetrics {
    final AtomicLong hits = new AtomicLong();
    final AtomicLong requests = new AtomicLong();
    final AtomicLong size = new AtomicLong();

    @Override
    public String prefix() {
      return "l2";
    }

    @Override
    public void snapshot(MetricsOut out) {
      out.add(Metrics.HITS, hits.get(), "l2");
      out.add(Metrics.REQUESTS, requests.get(), "l2");
      out.add(Metrics.HIT_RATIO, requests.get() == 0 ? 0.0 : (double) hits.get() / requests.get(),
          "l2");
      out.add(Metrics.SIZE, size.get(), "l2");
      out.add(Metrics.CLASS_USED, 3, "5120");
    }

    @Override
    public String detail() {
      return "5K: 1 slabs 3/800 slots";
    }
  }

  @Test
  void lines_showCountersSinceTheLastLine_thePeriodsHitRatio_andGaugesAsTheyAre() {
    FakeTier tier = new FakeTier();
    tier.hits.set(90);
    tier.requests.set(100);
    StatsLog log = StatsLog.start("test", List.of(tier), 0);
    tier.hits.addAndGet(10);
    tier.requests.addAndGet(40);
    tier.size.set(4096);
    String line = log.lines().get(0);
    assertTrue(line.startsWith("TierCache l2 stats, last "), line);
    assertTrue(line.contains("hitCount +10, requestCount +40, hitRatio 0.250, size 4096; "
        + "5K: 1 slabs 3/800 slots"), line);
    assertTrue(!line.contains("class_"), "per-class values are in the detail: " + line);
    tier.requests.addAndGet(5);
    line = log.lines().get(0);
    assertTrue(line.contains("hitCount +0, requestCount +5, hitRatio 0.000"), line);
    assertEquals(1, log.lines().size());
    log.stop();
  }
}
