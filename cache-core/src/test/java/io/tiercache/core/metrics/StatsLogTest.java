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
  /** A tier whose hits, requests and size (and, if timed, engine reads) a test sets. */
  static final class FakeTier implements TierMetrics {
    final AtomicLong hits = new AtomicLong();
    final AtomicLong requests = new AtomicLong();
    final AtomicLong size = new AtomicLong();
    final AtomicLong reads = new AtomicLong(-1); // -1: an engine that times nothing
    final AtomicLong micros = new AtomicLong();

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
      if (reads.get() >= 0) {
        out.add(Metrics.ENGINE_READS, reads.get());
        out.add(Metrics.ENGINE_READ_TIME, micros.get());
        out.add(Metrics.ENGINE_TIME_PER_READ,
            reads.get() == 0 ? 0.0 : (double) micros.get() / reads.get());
      }
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
  @Test
  void lines_timedEngine_showThePeriodsTimePerRead_andHitsPerSecond() {
    FakeTier tier = new FakeTier();
    tier.reads.set(10);
    tier.micros.set(10_000); // 1,000 us per read before the period
    StatsLog log = StatsLog.start("test", List.of(tier), 0);
    tier.hits.addAndGet(50);
    tier.reads.addAndGet(4);
    tier.micros.addAndGet(400); // 100 us per read in the period
    String line = log.lines().get(0);
    assertTrue(line.contains("engineReadCount +4, engineReadTime +400, engineTimePerRead 100.0"),
        line);
    assertTrue(line.matches(".*5K: 1 slabs 3/800 slots; [0-9.]+ hits/s$"), line);
  }

  @Test
  void lines_memoryEngine_showTheTimePerReadAsNotTimed() {
    TierMetrics untimed = new TierMetrics() {
      @Override
      public String prefix() {
        return "l2";
      }

      @Override
      public void snapshot(MetricsOut out) {
        out.add(Metrics.ENGINE_READS, 0);
        out.add(Metrics.ENGINE_TIME_PER_READ, -1.0);
      }
    };
    String line = StatsLog.start("test", List.of(untimed), 0).lines().get(0);
    assertTrue(line.contains("engineReadCount +0, engineTimePerRead -1.000; 0.0 hits/s"), line);
  }
}
