/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Insert path: how many never-seen 16 KB blocks per microsecond does a full 64 MB cache really
 * take, making room for each? Keys are new each time (a growing offset), as on cache-on-write.
 *
 * <p>Two rates: {@code insert} counts {@code cacheBlock} calls, {@code accepted} only the blocks
 * that got into the cache. HBase's BucketCache drops a block silently when its writer queue is
 * full, and TierCache's L2 rejects blocks its admission filter ({@code tiercache.l2.admission},
 * the {@code admission} parameter, ignored by HBase's caches) does not admit; a dropped block is
 * cheap, so only {@code accepted} compares the work of caching. In TierCache's default write mode
 * ({@code inline}, the {@code writeMode} parameter) the benchmark thread writes each admitted block
 * itself; in {@code queued} mode, as in BucketCache, writer threads do and a full queue drops. A
 * block counts as accepted if at the end of the iteration, once the writer queues drained, it is
 * cached or was evicted: the change in {@code getBlockCount()} plus the change in the
 * evicted-blocks counter.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar jmh InsertBenchmark}, one subject:
 * {@code ... jmh InsertBenchmark -p subject=hbase-bucket-offheap}; read the
 * {@code insert:accepted} rows.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class InsertBenchmark extends SubjectBenchmark {
  static final int BLOCK = 16 * 1024;

  /** TierCache's L2 admission, passed to TierCache's subjects by a system property. */
  @Param({"all", "tinylfu"})
  public String admission;

  /**
   * TierCache's L2 write mode ({@code tiercache.l2.write.mode}), by the same system property;
   * {@code -p writeMode=inline,queued} compares the two.
   */
  @Param({"inline"})
  public String writeMode;

  long next;

  @Setup
  public void setUp() throws Exception {
    if (admission != null) { // null when a test drives the benchmark without JMH
      System.setProperty("tiercache.l2.admission", admission);
    }
    if (writeMode != null) {
      System.setProperty("tiercache.l2.write.mode", writeMode);
    }
    open(BLOCK, 1);
    int full = bench.blocksFor(1.0);
    for (next = 0; next < full; next++) {
      bench.fill(bench.key(0, next));
    }
  }

  /** Blocks that got into the cache during one iteration (JMH reports it per microsecond). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Accepted {
    public long accepted;
    private long blocksBefore;
    private long evictedBefore;
    private long firstKey;

    @Setup(Level.Iteration)
    public void start(InsertBenchmark b) {
      BlockCache cache = b.bench.cache;
      b.drain(b.next);
      firstKey = b.next;
      blocksBefore = cache.getBlockCount();
      evictedBefore = cache.getStats().getEvictedCount();
      accepted = 0;
    }

    @TearDown(Level.Iteration)
    public void end(InsertBenchmark b) {
      BlockCache cache = b.bench.cache;
      b.drain(b.next);
      long cached = cache.getBlockCount() - blocksBefore
          + cache.getStats().getEvictedCount() - evictedBefore;
      accepted = Math.max(0, Math.min(cached, b.next - firstKey));
    }
  }

  /** Waits until the last keys inserted before {@code end} are written or dropped. */
  void drain(long end) {
    int n = (int) Math.min(256, end);
    BlockCacheKey[] last = new BlockCacheKey[n];
    for (int i = 0; i < n; i++) {
      last[i] = bench.key(0, end - 1 - i);
    }
    bench.awaitWritten(last);
  }

  @Benchmark
  public void insert(Accepted counters) {
    insert();
  }

  /** One insert of a new key (also what the smoke test calls, without JMH's counters). */
  public void insert() {
    bench.cache.cacheBlock(bench.key(0, next++), bench.block, false);
  }
}
