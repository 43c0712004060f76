/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Eviction-heavy churn: with two threads reading through the cache (read; on a miss, cache the
 * block) uniformly over eight times as many 16 KB blocks as the 64 MB cache holds, about seven
 * operations in eight insert and evict. What does the cache sustain?
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar jmh ChurnBenchmark}, one subject:
 * {@code ... jmh ChurnBenchmark -p subject=hbase-lru}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
@Threads(2)
public class ChurnBenchmark extends SubjectBenchmark {
  static final int BLOCK = 16 * 1024;

  BlockCacheKey[] keys;

  @Setup
  public void setUp() throws Exception {
    open(BLOCK, 1);
    keys = new BlockCacheKey[8 * bench.blocksFor(1.0)];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = bench.key(0, i);
    }
  }

  /** A thread's seeded random source. */
  @State(Scope.Thread)
  public static class Draw {
    private static final AtomicInteger THREADS = new AtomicInteger();
    SplittableRandom random;

    @Setup
    public void setUp() {
      random = new SplittableRandom(2000 + THREADS.getAndIncrement());
    }
  }

  @Benchmark
  public int churn(Draw d) {
    BlockCacheKey key = keys[d.random.nextInt(keys.length)];
    int length = bench.get(key);
    if (length < 0) {
      bench.cache.cacheBlock(key, bench.block, false);
    }
    return length;
  }
}
