/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import java.util.concurrent.TimeUnit;
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
 * Insert path: what does {@code cacheBlock} of a never-seen 16 KB block cost in a full 64 MB
 * cache, where every insert also makes room? Keys are new each time (a growing offset), as on
 * cache-on-write. HBase's BucketCache refuses a block when its writer queue is full; that refusal
 * is part of what is measured.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar jmh InsertBenchmark}, one subject:
 * {@code ... jmh InsertBenchmark -p subject=hbase-lru}.
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

  long next;

  @Setup
  public void setUp() throws Exception {
    open(BLOCK, 1);
    int full = bench.blocksFor(1.0);
    for (next = 0; next < full; next++) {
      bench.fill(bench.key(0, next));
    }
  }

  @Benchmark
  public void insert() {
    bench.cache.cacheBlock(bench.key(0, next++), bench.block, false);
  }
}
