/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What every microbenchmark shares: the subject (a cache by its registered name; JMH inherits
 * these {@code @Param}s), its capacity, and the cache under test, closed after the trial. A new
 * subject is added here once, and {@code JmhSmokeTest} checks the list names every registered
 * subject.
 */
@State(Scope.Benchmark)
public abstract class SubjectBenchmark {
  @Param({"tiercache-l1", "tiercache-l2-offheap", "tiercache-l2-file", "tiercache-l2-mmap",
      "tiercache-l2-pmem", "tiercache", "tiercache-move-on-hit", "tiercache-copy",
      "tiercache-hbase", "tiercache-exclusive",
      "hbase-lru", "hbase-tinylfu", "hbase-adaptive", "hbase-bucket-offheap", "hbase-bucket-file",
      "hbase-bucket-mmap", "hbase-bucket-pmem", "hbase-combined"})
  public String subject;

  @Param("64m")
  public String capacity;

  BenchCache bench;

  /** Builds the cache under test for blocks of {@code blockBytes} in {@code files} HFiles. */
  final void open(int blockBytes, int files) throws Exception {
    bench = new BenchCache(subject, capacity, blockBytes, files);
  }

  @TearDown
  public void tearDown() throws Exception {
    bench.close();
  }
}
