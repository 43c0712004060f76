/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code evictBlocksByHfileName} on a cache of many files: how long does evicting all
 * {@value #FILES} files of 4 blocks (4 KB each, 16 MB in a 64 MB cache), one call per file, take?
 * HBase calls it on compaction and region close; a cost proportional to the whole cache rather
 * than to the file shows up as a score that grows with {@code files x blocks}.
 *
 * <p>The score is the time of one iteration: {@value #FILES} calls, the cache refilled before
 * each iteration. Run: {@code java -jar benchmarks/target/benchmarks.jar jmh EvictByFileBenchmark},
 * one subject: {@code ... jmh EvictByFileBenchmark -p subject=hbase-lru}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, batchSize = EvictByFileBenchmark.FILES)
@Measurement(iterations = 5, batchSize = EvictByFileBenchmark.FILES)
@Fork(3)
@Threads(1)
public class EvictByFileBenchmark extends SubjectBenchmark {
  static final int FILES = 1000;
  static final int BLOCKS_PER_FILE = 4;
  static final int BLOCK = 4 * 1024;

  int nextFile;

  @Setup
  public void setUp() throws Exception {
    open(BLOCK, FILES);
  }

  /** Puts every block of every file back before each iteration. */
  @Setup(Level.Iteration)
  public void refill() {
    BlockCacheKey[] keys = new BlockCacheKey[FILES * BLOCKS_PER_FILE];
    for (int f = 0; f < FILES; f++) {
      for (int b = 0; b < BLOCKS_PER_FILE; b++) {
        keys[f * BLOCKS_PER_FILE + b] = bench.key(f, b);
        bench.fill(keys[f * BLOCKS_PER_FILE + b]);
      }
    }
    // BucketCache indexes a block by file only once a writer has drained it.
    bench.awaitWritten(keys);
    nextFile = 0;
  }

  @Benchmark
  public int evictFile() {
    int evicted = bench.cache.evictBlocksByHfileName(bench.fileName(nextFile));
    nextFile = nextFile + 1 == FILES ? 0 : nextFile + 1;
    return evicted;
  }
}
