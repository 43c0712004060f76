/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import io.tiercache.bench.workload.Zipfian;
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
 * Mixed 90/10: with two threads, what is the throughput when 90 % of operations read and 10 %
 * cache a block, both on zipfian keys (theta 0.99) over twice as many 16 KB blocks as the 64 MB
 * cache holds? Reads miss sometimes; inserts replace or add.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar jmh MixedBenchmark}, one subject:
 * {@code ... jmh MixedBenchmark -p subject=hbase-lru}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
@Threads(2)
public class MixedBenchmark extends SubjectBenchmark {
  static final int BLOCK = 16 * 1024;

  BlockCacheKey[] keys;
  Zipfian zipfian;

  @Setup
  public void setUp() throws Exception {
    open(BLOCK, 1);
    keys = new BlockCacheKey[2 * bench.blocksFor(1.0)];
    SplittableRandom shuffle = new SplittableRandom(11);
    for (int i = 0; i < keys.length; i++) {
      int j = shuffle.nextInt(i + 1);
      keys[i] = keys[j];
      keys[j] = bench.key(0, i);
    }
    zipfian = new Zipfian(keys.length, Zipfian.THETA);
    for (int i = 0; i < keys.length / 2; i++) {
      bench.fill(keys[i]);
    }
  }

  /** A thread's seeded random source. */
  @State(Scope.Thread)
  public static class Draw {
    private static final AtomicInteger THREADS = new AtomicInteger();
    SplittableRandom random;

    @Setup
    public void setUp() {
      random = new SplittableRandom(1000 + THREADS.getAndIncrement());
    }
  }

  @Benchmark
  public int mixed(Draw d) {
    BlockCacheKey key = keys[zipfian.rank(d.random.nextDouble())];
    if (d.random.nextInt(10) == 0) {
      bench.cache.cacheBlock(key, bench.block, false);
      return 0;
    }
    return bench.get(key);
  }
}
