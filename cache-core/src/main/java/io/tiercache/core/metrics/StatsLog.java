/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic INFO stats line, one per tier, like HBase's {@code LruBlockCache} (every five
 * minutes) and {@code BucketCache} (which adds fragmentation per size class): counters as their
 * change since the last line, the hit ratio and the engine's time per read of that period,
 * gauges as they are, then the tier's {@link TierMetrics#detail()} and the period's hits per
 * second. Names are those of {@code docs/metrics.md}.
 *
 * <p>Example: {@code TierCache l2 stats, last 300 s: hitCount +1200, missCount +40,
 * hitRatio 0.968, ..., engineTimePerRead 104.2, ..., size 16777216, ...; file:/data/l2.cache;
 * slabs 16 (free 0), utilisation 81.0%; 33K: 3 slabs 60/93 slots; ...; 4.0 hits/s}
 *
 * <h2>Concurrency</h2>
 * {@link #lines} runs on this logger's one daemon thread (and in tests on the caller's); the
 * previous values are guarded by this object's lock.
 */
public final class StatsLog {
  private static final Logger LOG = LoggerFactory.getLogger(StatsLog.class);

  private final List<TierMetrics> tiers;
  private final ScheduledExecutorService timer;
  private final Map<String, Map<String, Number>> previous = new HashMap<>(); // guarded by this
  private long previousNanos; // guarded by this

  private StatsLog(List<TierMetrics> tiers, ScheduledExecutorService timer) {
    this.tiers = List.copyOf(tiers);
    this.timer = timer;
    this.previousNanos = System.nanoTime();
    for (TierMetrics t : this.tiers) {
      previous.put(t.prefix(), snapshot(t).values());
    }
  }

  /**
   * Starts a line per tier every {@code intervalSeconds} on a daemon thread named after
   * {@code cacheName}; {@code 0} logs nothing (returns a logger without a thread).
   */
  public static StatsLog start(String cacheName, List<TierMetrics> tiers, int intervalSeconds) {
    if (intervalSeconds <= 0) {
      return new StatsLog(tiers, null);
    }
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tiercache-" + cacheName + "-stats");
      t.setDaemon(true);
      return t;
    });
    StatsLog log = new StatsLog(tiers, timer);
    timer.scheduleAtFixedRate(log::logQuietly, intervalSeconds, intervalSeconds,
        TimeUnit.SECONDS);
    return log;
  }

  /** Stops the timer (the cache's shutdown). */
  public void stop() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  private void logQuietly() {
    try {
      for (String line : lines()) {
        LOG.info(line);
      }
    } catch (RuntimeException e) {
      LOG.warn("TierCache stats line failed", e); // a bug; the timer must keep running
    }
  }

  /** The lines for the period since the last call (or since start), one per tier. */
  public synchronized List<String> lines() {
    long now = System.nanoTime();
    double seconds = (now - previousNanos) / 1e9;
    previousNanos = now;
    List<String> lines = new java.util.ArrayList<>();
    for (TierMetrics t : tiers) {
      MetricsOut.Recorder r = snapshot(t);
      Map<String, Number> before = previous.getOrDefault(t.prefix(), Map.of());
      lines.add(line(t, seconds, r, before));
      previous.put(t.prefix(), r.values());
    }
    return lines;
  }

  private static MetricsOut.Recorder snapshot(TierMetrics t) {
    MetricsOut.Recorder r = new MetricsOut.Recorder();
    t.snapshot(r);
    return r;
  }

  private static String line(TierMetrics t, double seconds, MetricsOut.Recorder r,
      Map<String, Number> before) {
    String p = t.prefix() + "_";
    StringBuilder sb = new StringBuilder("TierCache ").append(t.prefix())
        .append(" stats, last ").append(Math.round(seconds)).append(" s:");
    long dHits = delta(r, before, Metrics.HITS.fill(t.prefix()));
    long dRequests = delta(r, before, Metrics.REQUESTS.fill(t.prefix()));
    String sep = " ";
    for (Map.Entry<String, Number> e : r.values().entrySet()) {
      Metric m = r.metricOf(e.getKey());
      if (m.isPerItem()) {
        continue;
      }
      String shortName = e.getKey().startsWith(p) ? e.getKey().substring(p.length())
          : e.getKey();
      sb.append(sep).append(shortName).append(' ');
      sep = ", ";
      if (m == Metrics.HIT_RATIO) {
        sb.append(String.format(Locale.ROOT, "%.3f",
            dRequests == 0 ? 0.0 : (double) dHits / dRequests));
      } else if (m == Metrics.ENGINE_TIME_PER_READ && e.getValue().doubleValue() >= 0) {
        long dReads = delta(r, before, Metrics.ENGINE_READS.fill());
        long dMicros = delta(r, before, Metrics.ENGINE_READ_TIME.fill());
        sb.append(String.format(Locale.ROOT, "%.1f",
            dReads == 0 ? 0.0 : (double) dMicros / dReads));
      } else if (m.kind() == Metric.Kind.COUNTER) {
        sb.append('+').append(delta(r, before, e.getKey()));
      } else if (e.getValue() instanceof Double) {
        sb.append(String.format(Locale.ROOT, "%.3f", e.getValue().doubleValue()));
      } else {
        sb.append(e.getValue().longValue());
      }
    }
    String detail = t.detail();
    if (!detail.isEmpty()) {
      sb.append("; ").append(detail);
    }
    // BucketCache's "hits per second", over this period
    sb.append(String.format(Locale.ROOT, "; %.1f hits/s", seconds <= 0 ? 0.0 : dHits / seconds));
    return sb.toString();
  }

  private static long delta(MetricsOut.Recorder r, Map<String, Number> before, String name) {
    Number now = r.values().get(name);
    Number then = before.get(name);
    return (now == null ? 0 : now.longValue()) - (then == null ? 0 : then.longValue());
  }
}
