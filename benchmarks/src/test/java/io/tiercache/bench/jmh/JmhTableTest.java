/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class JmhTableTest {
  @Test
  void markdown_subjectsDownBenchmarksAcross_scoreAndError() {
    String table = JmhTable.markdown(List.of(
        new JmhTable.Row("HitBenchmark.hit1", "tiercache-l1", 24.437, 1.204, "ops/us", 15),
        new JmhTable.Row("HitBenchmark.hit1", "hbase-lru", 33.1, Double.NaN, "ops/us", 1),
        new JmhTable.Row("EvictByFileBenchmark.evictFile", "hbase-lru", 123.4, 7.01, "ms/op",
            15)));
    assertEquals("| subject | HitBenchmark.hit1 (ops/us) | EvictByFileBenchmark.evictFile (ms/op) |\n"
        + "|---|---:|---:|\n"
        + "| `tiercache-l1` | 24.4 ± 1.20 |  |\n"
        + "| `hbase-lru` | 33.1 ± - | 123 ± 7.01 |\n", table);
  }

  @Test
  void withDefaults_addsThreeForksAndJvmFlagsUnlessGiven() {
    assertEquals(List.of("-f", "3", "-jvmArgsAppend", "--flags", "HitBenchmark"),
        JmhCommand.withDefaults(List.of("HitBenchmark"), "--flags"));
    assertEquals(List.of("-jvmArgsAppend", "--flags", "-f", "5"),
        JmhCommand.withDefaults(List.of("-f", "5"), "--flags"));
    assertEquals(List.of("-l"), JmhCommand.withDefaults(List.of("-l"), "--flags"));
  }
}
