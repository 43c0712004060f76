/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import io.tiercache.bench.data.Dataset;
import io.tiercache.bench.subject.CacheCounters;
import io.tiercache.bench.subject.CacheSpec;
import io.tiercache.bench.subject.Scratch;
import io.tiercache.bench.subject.Subject;
import io.tiercache.bench.workload.AccessStream;
import io.tiercache.bench.workload.MissDelay;
import io.tiercache.bench.workload.MissTimes;
import io.tiercache.bench.workload.Reader;
import io.tiercache.bench.workload.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.hbase.io.hfile.BlockCache;

/**
 * Runs one subject through one workload: build a fresh cache, warm it up, measure a fixed number
 * of operations on {@code threads} workers, shut the cache down and delete its files.
 *
 * <p>The phases are separated by a {@link Phaser} shared by the workers and the calling thread:
 * <ol>
 *   <li>workers warm up, then arrive;</li>
 *   <li>the caller snapshots the cache's counters and the JVM meters, starts the clock, arrives;</li>
 *   <li>workers run their share of the measured operations, then arrive; meanwhile the caller
 *       counts the cache's blocks every {@value #RESIDENCY_SAMPLE_MILLIS} ms;</li>
 *   <li>the caller stops the clock and snapshots again while the workers are still alive (their
 *       allocation counters die with them), then arrives and the workers end.</li>
 * </ol>
 * A worker that fails terminates the phaser, which releases everyone; the run then reports the
 * failure instead of numbers.
 *
 * <p>Concurrency: one run at a time per runner; the workers share only the cache, the dataset
 * (read-only) and the phaser.
 */
final class Runner {
  /** Latencies above this are recorded as this (an HdrHistogram needs a bound). */
  private static final long MAX_LATENCY_NANOS = MissTimes.MAX_NANOS;
  /** How often the caller counts the cache's blocks while the workers measure. */
  static final long RESIDENCY_SAMPLE_MILLIS = 10;

  private final Dataset dataset;
  private final Path cacheDir;
  private final long capacity;
  private final int threads;
  private final long seed;

  Runner(Dataset dataset, Path cacheDir, long capacity, int threads, long seed) {
    this.dataset = dataset;
    this.cacheDir = cacheDir;
    this.capacity = capacity;
    this.threads = threads;
    this.seed = seed;
  }

  /**
   * Runs {@code subject} on {@code workload}: {@code warmupOps}, then {@code ops} measured, every
   * measured miss waiting {@code missLatencyNanos} (the warm-up never waits: it only fills the
   * cache, and the cache's state after it does not depend on time). The cell's reference hit
   * ratios ({@code bounds}) are carried into the result, marked as run {@code round} (from 1) of
   * the cell.
   */
  Result run(Subject subject, Workload workload, long warmupOps, long ops, long missLatencyNanos,
      Bounds bounds, int round) {
    Result.Builder r = new Result.Builder();
    r.round = round;
    r.missLatencyNanos = missLatencyNanos;
    r.optHitRatio = bounds.opt;
    r.a0HitRatio = bounds.a0;
    r.subject = subject.name();
    r.vendor = subject.vendor();
    r.counterpart = subject.counterpart();
    r.scenario = workload.scenario();
    r.capacity = capacity;
    r.datasetBytes = workload.bytes();
    r.threads = threads;
    Path scratch = null;
    BlockCache cache = null;
    try {
      Files.createDirectories(cacheDir);
      scratch = Files.createTempDirectory(cacheDir, subject.name() + "-");
      cache = subject.create(new CacheSpec(capacity, workload.scenario().sizes().typicalPayload(),
          scratch));
      measure(cache, workload, warmupOps, ops, r);
    } catch (Throwable t) {
      r.error = describe(t);
    } finally {
      if (cache != null) {
        try {
          cache.shutdown();
        } catch (RuntimeException e) {
          r.error = r.error != null ? r.error : "shutdown failed: " + describe(e);
        }
      }
      deleteQuietly(scratch);
    }
    return r.build();
  }

  private void measure(BlockCache cache, Workload workload, long warmupOps, long ops,
      Result.Builder r) throws Throwable {
    Phaser phaser = new Phaser(threads + 1);
    Worker[] workers = new Worker[threads];
    for (int t = 0; t < threads; t++) {
      long share = ops / threads + (t < ops % threads ? 1 : 0);
      long warm = warmupOps / threads + (t < warmupOps % threads ? 1 : 0);
      workers[t] = new Worker(cache, workload.stream(seed, t), phaser, warm, share,
          new MissDelay(r.missLatencyNanos));
      workers[t].setName("showdown-worker-" + t);
      workers[t].setDaemon(true);
    }
    for (Worker w : workers) {
      w.peers = workers;
      w.start();
    }
    try {
      arrive(phaser, workers);
      CacheCounters countersBefore = CacheCounters.of(cache);
      JvmMeters before = JvmMeters.now();
      long start = System.nanoTime();
      arrive(phaser, workers);
      Residency residency = awaitMeasured(phaser, workers, cache);
      long elapsed = System.nanoTime() - start;
      JvmMeters after = JvmMeters.now();
      CacheCounters counters = CacheCounters.of(cache).minus(countersBefore);
      phaser.arrive();

      Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
      long hits = 0;
      long reads = 0;
      long scanHits = 0;
      long scanReads = 0;
      long scanGaps = 0;
      long scanGapSamples = 0;
      long waited = 0;
      long waits = 0;
      MissTimes missTimes = new MissTimes();
      for (Worker w : workers) {
        missTimes.add(w.missTimes);
        latency.add(w.latency);
        hits += w.hits;
        reads += w.reads;
        scanHits += w.scanHits;
        scanReads += w.scanReads;
        scanGaps += w.scanGapSum;
        scanGapSamples += w.scanGapSamples;
        waited += w.delay.waitedNanos();
        waits += w.delay.waits();
      }
      r.missWaitNanos = waits == 0 ? Double.NaN : (double) waited / waits;
      r.fetchP99 = missTimes.fetchNanos(99);
      r.fetchP999 = missTimes.fetchNanos(99.9);
      r.insertP50 = missTimes.insertNanos(50);
      r.insertP99 = missTimes.insertNanos(99);
      r.missMeanBytes = missTimes.meanBytes();
      r.bytesWrittenPerOp = counters.bytesWritten < 0 ? Double.NaN
          : (double) counters.bytesWritten / ops;
      r.ops = ops;
      r.reads = reads;
      r.seconds = elapsed / 1e9;
      r.hitRatio = ratio(hits, reads);
      r.scanHitRatio = ratio(scanHits, scanReads);
      r.scanGapMean = ratio(scanGaps, scanGapSamples);
      if (counters.tiered) {
        r.l1HitRatio = ratio(counters.l1Hits, counters.l1Requests);
        r.l2HitRatio = ratio(counters.l2Hits, counters.l2Requests);
      }
      r.p50 = latency.getValueAtPercentile(50);
      r.p95 = latency.getValueAtPercentile(95);
      r.p99 = latency.getValueAtPercentile(99);
      r.p999 = latency.getValueAtPercentile(99.9);
      r.max = latency.getMaxValue();
      r.allocBytesPerOp = (double) after.allocatedSince(before) / ops;
      r.gcCount = after.gcCount - before.gcCount;
      r.gcMillis = after.gcMillis - before.gcMillis;
      r.residentBlocksMean = residency.mean();
      r.residentBlocksMax = residency.max;
      r.refused = counters.failedInserts;
      r.admissionRejected = counters.admissionRejected;
    } finally {
      phaser.forceTermination();
      for (Worker w : workers) {
        w.join();
      }
    }
  }

  /**
   * Arrives for the caller at the end of the measured phase and waits for the workers, counting
   * the cache's resident blocks as the phase starts and every {@value #RESIDENCY_SAMPLE_MILLIS}
   * ms after (a timed wait on the phaser, so the count stops as the phase ends); rethrows a
   * worker's failure.
   */
  private static Residency awaitMeasured(Phaser phaser, Worker[] workers, BlockCache cache)
      throws Throwable {
    Residency residency = new Residency();
    int phase = phaser.arrive();
    while (true) {
      residency.add(cache.getBlockCount());
      try {
        if (phaser.awaitAdvanceInterruptibly(phase, RESIDENCY_SAMPLE_MILLIS,
            TimeUnit.MILLISECONDS) < 0) {
          rethrow(workers);
        }
        return residency;
      } catch (TimeoutException stillRunning) {
        // sample again
      }
    }
  }

  /** Arrives for the caller and waits for the workers; rethrows a worker's failure. */
  private static void arrive(Phaser phaser, Worker[] workers) throws Throwable {
    if (phaser.arriveAndAwaitAdvance() < 0) {
      rethrow(workers);
    }
  }

  /** After the phaser terminated: the first worker's failure. */
  private static void rethrow(Worker[] workers) throws Throwable {
    for (Worker w : workers) {
      w.join();
      if (w.failure != null) {
        throw w.failure;
      }
    }
    throw new IllegalStateException("a worker stopped without saying why");
  }

  /** The cache's block count sampled over the measured phase. */
  private static final class Residency {
    long samples;
    long sum;
    long max = -1;

    void add(long blocks) {
      samples++;
      sum += blocks;
      max = Math.max(max, blocks);
    }

    double mean() {
      return (double) sum / samples;
    }
  }

  private static double ratio(long part, long whole) {
    return whole == 0 ? Double.NaN : (double) part / whole;
  }

  private static String describe(Throwable t) {
    StringWriter s = new StringWriter();
    t.printStackTrace(new PrintWriter(s));
    String first = s.toString().lines().limit(4).reduce((a, b) -> a + " | " + b.trim()).orElse("");
    return first.replace('"', '\'');
  }

  private static void deleteQuietly(Path dir) {
    try {
      Scratch.deleteTree(dir);
    } catch (IOException e) {
      System.err.println("could not delete " + dir + ": " + e);
    }
  }

  /** One worker thread: its own stream of operations, latencies and hit counts. */
  private final class Worker extends Thread {
    final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    final BlockCache cache;
    final AccessStream stream;
    final Phaser phaser;
    final long warmupOps;
    final long ops;
    final MissDelay delay;
    final MissTimes missTimes = new MissTimes();
    long hits;
    long reads;
    long scanHits;
    long scanReads;
    /** Sum over measured scan reads of the distance to the nearest other scanner, in blocks. */
    long scanGapSum;
    long scanGapSamples;
    /** Every worker of the cell, this one included; set before any starts. */
    Worker[] peers;
    /** Where in the scan's pass this worker last read, -1 before its first scan read. */
    volatile int scanAt = -1;
    volatile Throwable failure;

    Worker(BlockCache cache, AccessStream stream, Phaser phaser, long warmupOps, long ops,
        MissDelay delay) {
      this.delay = delay;
      this.cache = cache;
      this.stream = stream;
      this.phaser = phaser;
      this.warmupOps = warmupOps;
      this.ops = ops;
    }

    @Override
    public void run() {
      try {
        int[] ids = new int[AccessStream.MAX_READS];
        for (long i = 0; i < warmupOps && !phaser.isTerminated(); i++) {
          int n = stream.next(ids);
          for (int k = 0; k < n; k++) {
            Reader.read(cache, dataset, ids[k]);
          }
        }
        if (phaser.arriveAndAwaitAdvance() < 0 || phaser.arriveAndAwaitAdvance() < 0) {
          return;
        }
        for (long i = 0; i < ops && !phaser.isTerminated(); i++) {
          int n = stream.next(ids);
          long start = System.nanoTime();
          int hit = 0;
          for (int k = 0; k < n; k++) {
            if (Reader.read(cache, dataset, ids[k], delay, missTimes)) {
              hit++;
            }
          }
          latency.recordValue(Math.min(System.nanoTime() - start, MAX_LATENCY_NANOS));
          hits += hit;
          reads += n;
          int at = stream.lastScanPosition();
          if (at >= 0) {
            scanRead(at, hit > 0);
          }
        }
        if (phaser.arriveAndAwaitAdvance() >= 0) {
          phaser.arriveAndAwaitAdvance();
        }
      } catch (Throwable t) {
        failure = t;
        phaser.forceTermination();
      }
    }

    /**
     * Counts a measured scan read at {@code at} in the pass: its hit, and how far (in blocks,
     * either way round the pass) the nearest other worker's last scan read is. Two scanners
     * close together read the same blocks a short time apart, which a cache can serve; how
     * close they run depends on their speeds, and so on the cache (a hit is faster than a miss).
     */
    private void scanRead(int at, boolean hit) {
      scanReads++;
      if (hit) {
        scanHits++;
      }
      scanAt = at;
      int pass = stream.scanPass();
      int nearest = Integer.MAX_VALUE;
      for (Worker w : peers) {
        int other = w.scanAt;
        if (w != this && other >= 0) {
          int d = Math.abs(at - other);
          nearest = Math.min(nearest, Math.min(d, pass - d));
        }
      }
      if (nearest != Integer.MAX_VALUE) {
        scanGapSum += nearest;
        scanGapSamples++;
      }
    }
  }
}
