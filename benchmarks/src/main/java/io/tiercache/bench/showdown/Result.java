/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import io.tiercache.bench.cli.Converters;
import io.tiercache.bench.subject.Subject;
import io.tiercache.bench.workload.Scenario;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * What one subject did in one scenario's measured phase. Latencies are per operation (one get:
 * one block read, three for the HBase-shaped mix) in nanoseconds; ratios in {@code [0, 1]}, or
 * {@code NaN} where they do not apply (per-tier hit ratios of a single-tier cache).
 */
public final class Result {
  public final String subject;
  public final Subject.Vendor vendor;
  /** The HBase subject this one is compared with like for like, or null. */
  public final String counterpart;
  public final Scenario scenario;
  public final long capacity;
  public final long datasetBytes;
  public final int threads;
  public final long ops;
  public final long reads;
  public final double seconds;
  public final double hitRatio;
  public final double l1HitRatio;
  public final double l2HitRatio;
  public final long p50;
  public final long p95;
  public final long p99;
  public final long p999;
  public final long max;
  public final double allocBytesPerOp;
  public final long gcCount;
  public final long gcMillis;
  public final long refused;
  public final long admissionRejected;
  /**
   * The miss regime: latency added to every miss in nanoseconds, 0 for page-cache misses (the
   * harness's pread alone).
   */
  public final long missLatencyNanos;
  /** Mean time a miss really waited for the added latency (ns), NaN without one. */
  public final double missWaitNanos;
  /**
   * p99 of a measured miss's fetch: the added wait and the read of the block, the same work for
   * every subject (ns; NaN without a miss). See {@code MissTimes}.
   */
  public final double fetchP99;
  /**
   * p99.9 of a measured miss's fetch (ns; NaN without a miss): with an added miss latency, the
   * tail of the park itself, to set against the operation's p99.9.
   */
  public final double fetchP999;
  /** p50 of a measured miss's insert, the cache's {@code cacheBlock} (ns; NaN without a miss). */
  public final double insertP50;
  /** p99 of a measured miss's insert (ns; NaN without a miss). */
  public final double insertP99;
  /** Mean serialized bytes of a measured miss's block (NaN without a miss). */
  public final double missMeanBytes;
  /** Bytes written to an L2 engine per measured operation; NaN where the cache does not say. */
  public final double bytesWrittenPerOp;
  /**
   * The cache's {@code getBlockCount()} over the measured phase, sampled as it starts and every
   * {@code Runner.RESIDENCY_SAMPLE_MILLIS} ms after: the mean and the largest sample (NaN and -1
   * if the run failed). How many blocks a cache really holds of its budget; a cache that evicts
   * asynchronously can hold more than its budget for a while.
   */
  public final double residentBlocksMean;
  public final long residentBlocksMax;
  /**
   * The {@code scan} pattern's scan reads alone: their hit ratio, and the mean distance (blocks
   * of the pass, either way round) from each to the nearest other thread's last scan read; NaN
   * for other patterns. The trailing thread of two re-reads what the leading one read that many
   * scan reads before, so the scan's hits depend on how close the threads run.
   */
  public final double scanHitRatio;
  public final double scanGapMean;
  /** Bélády's hit ratio on the same reads and capacity (see {@code Belady}), NaN if not run. */
  public final double optHitRatio;
  /**
   * The most any cache that does not know the order of future reads can expect on the cell's
   * pattern and capacity (see {@code PopularityBound}), NaN if not run or not defined for the
   * pattern.
   */
  public final double a0HitRatio;
  /**
   * How many runs of the subject in the cell this row summarises ({@code --rounds}): 1 for a
   * single run; above 1 the row holds each measure's median over the runs, taken measure by
   * measure (so its p99 and its throughput may come from different runs).
   */
  public final int rounds;
  /** Which run this row is, from 1; 0 for a row of medians over {@code rounds} runs. */
  public final int round;
  /** Why the run failed, or null. */
  public final String error;

  Result(Builder b) {
    this.subject = b.subject;
    this.vendor = b.vendor;
    this.counterpart = b.counterpart;
    this.scenario = b.scenario;
    this.capacity = b.capacity;
    this.datasetBytes = b.datasetBytes;
    this.threads = b.threads;
    this.ops = b.ops;
    this.reads = b.reads;
    this.seconds = b.seconds;
    this.hitRatio = b.hitRatio;
    this.l1HitRatio = b.l1HitRatio;
    this.l2HitRatio = b.l2HitRatio;
    this.p50 = b.p50;
    this.p95 = b.p95;
    this.p99 = b.p99;
    this.p999 = b.p999;
    this.max = b.max;
    this.allocBytesPerOp = b.allocBytesPerOp;
    this.gcCount = b.gcCount;
    this.gcMillis = b.gcMillis;
    this.refused = b.refused;
    this.admissionRejected = b.admissionRejected;
    this.missLatencyNanos = b.missLatencyNanos;
    this.missWaitNanos = b.missWaitNanos;
    this.fetchP99 = b.fetchP99;
    this.fetchP999 = b.fetchP999;
    this.insertP50 = b.insertP50;
    this.insertP99 = b.insertP99;
    this.missMeanBytes = b.missMeanBytes;
    this.bytesWrittenPerOp = b.bytesWrittenPerOp;
    this.residentBlocksMean = b.residentBlocksMean;
    this.residentBlocksMax = b.residentBlocksMax;
    this.scanHitRatio = b.scanHitRatio;
    this.scanGapMean = b.scanGapMean;
    this.optHitRatio = b.optHitRatio;
    this.a0HitRatio = b.a0HitRatio;
    this.rounds = b.rounds;
    this.round = b.round;
    this.error = b.error;
  }

  /**
   * One subject's runs of one cell as a row of medians: each measured value is the median of its
   * values over the runs (the mean of the middle two for an even count; values that do not apply,
   * NaN, are left out), the cell's description and its OPT and A0 bounds are the first run's. A
   * single run is returned as it is; if a run failed, the first failed run is returned, so that a
   * failure is never hidden behind the runs that passed.
   *
   * @throws IllegalArgumentException if {@code runs} is empty or mixes subjects or cells
   */
  static Result median(List<Result> runs) {
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("no runs");
    }
    Result first = runs.get(0);
    for (Result r : runs) {
      if (!r.subject.equals(first.subject) || !r.cell().equals(first.cell())) {
        throw new IllegalArgumentException("runs of " + first.subject + " in " + first.cell()
            + " mixed with " + r.subject + " in " + r.cell());
      }
    }
    if (runs.size() == 1) {
      return first;
    }
    for (Result r : runs) {
      if (r.failed()) {
        return r;
      }
    }
    Builder b = new Builder();
    b.subject = first.subject;
    b.vendor = first.vendor;
    b.counterpart = first.counterpart;
    b.scenario = first.scenario;
    b.capacity = first.capacity;
    b.datasetBytes = first.datasetBytes;
    b.threads = first.threads;
    b.ops = first.ops;
    b.missLatencyNanos = first.missLatencyNanos;
    b.optHitRatio = first.optHitRatio;
    b.a0HitRatio = first.a0HitRatio;
    b.reads = medianLong(runs, r -> r.reads);
    b.seconds = median(runs, r -> r.seconds);
    b.hitRatio = median(runs, r -> r.hitRatio);
    b.l1HitRatio = median(runs, r -> r.l1HitRatio);
    b.l2HitRatio = median(runs, r -> r.l2HitRatio);
    b.p50 = medianLong(runs, r -> r.p50);
    b.p95 = medianLong(runs, r -> r.p95);
    b.p99 = medianLong(runs, r -> r.p99);
    b.p999 = medianLong(runs, r -> r.p999);
    b.max = medianLong(runs, r -> r.max);
    b.allocBytesPerOp = median(runs, r -> r.allocBytesPerOp);
    b.gcCount = medianLong(runs, r -> r.gcCount);
    b.gcMillis = medianLong(runs, r -> r.gcMillis);
    b.refused = medianLong(runs, r -> r.refused);
    b.admissionRejected = medianLong(runs, r -> r.admissionRejected);
    b.missWaitNanos = median(runs, r -> r.missWaitNanos);
    b.fetchP99 = median(runs, r -> r.fetchP99);
    b.fetchP999 = median(runs, r -> r.fetchP999);
    b.insertP50 = median(runs, r -> r.insertP50);
    b.insertP99 = median(runs, r -> r.insertP99);
    b.missMeanBytes = median(runs, r -> r.missMeanBytes);
    b.bytesWrittenPerOp = median(runs, r -> r.bytesWrittenPerOp);
    b.residentBlocksMean = median(runs, r -> r.residentBlocksMean);
    b.residentBlocksMax = medianLong(runs, r -> r.residentBlocksMax);
    b.scanHitRatio = median(runs, r -> r.scanHitRatio);
    b.scanGapMean = median(runs, r -> r.scanGapMean);
    b.rounds = runs.size();
    b.round = 0;
    return b.build();
  }

  private static double median(List<Result> runs, ToDoubleFunction<Result> measure) {
    double[] v = runs.stream().mapToDouble(measure).filter(x -> !Double.isNaN(x)).sorted()
        .toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    int mid = v.length / 2;
    return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  }

  private static long medianLong(List<Result> runs, ToLongFunction<Result> measure) {
    return Math.round(median(runs, r -> measure.applyAsLong(r)));
  }

  /** Operations per second of the measured phase. */
  public double opsPerSecond() {
    return seconds > 0 ? ops / seconds : 0;
  }

  /** The hit ratio as a share of Bélády's on the same reads (1 = optimal), NaN if unknown. */
  public double shareOfOpt() {
    return optHitRatio > 0 ? hitRatio / optHitRatio : Double.NaN;
  }

  /** The regime's name: {@code pagecache}, or {@code miss+500us} for an added miss latency. */
  public String regime() {
    return regime(missLatencyNanos);
  }

  /** The name of the regime with {@code missLatencyNanos}. */
  public static String regime(long missLatencyNanos) {
    return missLatencyNanos == 0 ? "pagecache" : "miss+" + Converters.formatNanos(missLatencyNanos);
  }

  /**
   * The cell's name: the scenario's, with the regime appended outside the page-cache regime
   * ({@code zipf-64k-3x}, {@code zipf-64k-3x@miss+500us}).
   */
  public String cell() {
    return missLatencyNanos == 0 ? scenario.name() : scenario.name() + "@" + regime();
  }

  public boolean failed() {
    return error != null;
  }

  /** Mutable fields for {@link Runner}; a plain holder, not shared between threads. */
  static final class Builder {
    String subject;
    Subject.Vendor vendor;
    String counterpart;
    Scenario scenario;
    long capacity;
    long datasetBytes;
    int threads;
    long ops;
    long reads;
    double seconds;
    double hitRatio = Double.NaN;
    double l1HitRatio = Double.NaN;
    double l2HitRatio = Double.NaN;
    long p50;
    long p95;
    long p99;
    long p999;
    long max;
    double allocBytesPerOp = Double.NaN;
    long gcCount;
    long gcMillis;
    long refused;
    long admissionRejected;
    long missLatencyNanos;
    double missWaitNanos = Double.NaN;
    double fetchP99 = Double.NaN;
    double fetchP999 = Double.NaN;
    double insertP50 = Double.NaN;
    double insertP99 = Double.NaN;
    double missMeanBytes = Double.NaN;
    double bytesWrittenPerOp = Double.NaN;
    double residentBlocksMean = Double.NaN;
    long residentBlocksMax = -1;
    double scanHitRatio = Double.NaN;
    double scanGapMean = Double.NaN;
    double optHitRatio = Double.NaN;
    double a0HitRatio = Double.NaN;
    int rounds = 1;
    int round = 1;
    String error;

    Result build() {
      return new Result(this);
    }
  }
}
