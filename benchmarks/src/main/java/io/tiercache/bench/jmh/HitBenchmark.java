/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

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
 * Hit path: what does {@code getBlock} + {@code release} of a resident 16 KB block cost, on one
 * thread and on two? 1,024 blocks (16 MB) sit in a 64 MB cache; each thread walks them in a
 * fixed stride.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar jmh HitBenchmark}, one subject:
 * {@code ... jmh HitBenchmark -p subject=hbase-lru}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class HitBenchmark extends SubjectBenchmark {
  static final int BLOCK = 16 * 1024;
  static final int KEYS = 1024;

  BlockCacheKey[] keys;

  @Setup
  public void setUp() throws Exception {
    open(BLOCK, 1);
    keys = new BlockCacheKey[KEYS];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = bench.key(0, i);
      bench.fill(keys[i]);
    }
    bench.awaitWritten(keys);
  }

  /** Where a thread is in its walk over the resident keys. */
  @State(Scope.Thread)
  public static class Cursor {
    private static final AtomicInteger THREADS = new AtomicInteger();
    int next;

    @Setup
    public void setUp() {
      next = (THREADS.getAndIncrement() * KEYS / 2) % KEYS;
    }
  }

  @Benchmark
  @Threads(1)
  public int hit1(Cursor c) {
    return read(c);
  }

  @Benchmark
  @Threads(2)
  public int hit2(Cursor c) {
    return read(c);
  }

  private int read(Cursor c) {
    int i = c.next;
    c.next = (i + 7) & (KEYS - 1);
    return bench.get(keys[i]);
  }
}
