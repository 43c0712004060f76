/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real-HBase mode at a tiny scale, in this JVM: one TierCache run (an in-process HBase with
 * {@code TieredRegionServer}, PE's sequentialWrite and two randomRead passes) produces a row with
 * gets, latencies and hit ratios from both tiers.
 */
class RealHBaseSmokeTest {
  @TempDir
  Path dir;

  @Test
  void oneTierCacheRun_writesItsRow() throws Exception {
    RealHBase bench = new RealHBase(32L << 20, new int[] {1}, List.of("tiercache"), 600, 2, dir);
    bench.runChild("tiercache", 1);
    List<String> lines =
        Files.readAllLines(dir.resolve("rows").resolve("tiercache-1x.csv"), StandardCharsets.UTF_8);
    assertEquals(2, lines.size(), String.join("\n", lines));
    String[] f = lines.get(1).split(",");
    assertEquals("tiercache", f[0]);
    assertTrue(Double.parseDouble(f[3]) > 0, "gets/s " + f[3]);
    assertTrue(Double.parseDouble(f[6]) > 0, "p99 " + f[6]);
    double l1Hit = Double.parseDouble(f[10]);
    assertTrue(l1Hit > 0 && l1Hit <= 1, "L1 (index/bloom) hit ratio " + l1Hit);
  }

  @Test
  void rounds_alternateTheSubjectsOrder_soNeitherAlwaysRunsFirst() {
    RealHBase bench = new RealHBase(32L << 20, new int[] {3},
        List.of("hbase-combined", "tiercache"), 600, 2, dir).rounds(3);
    assertEquals(List.of("hbase-combined", "tiercache"), bench.roundOrder(1));
    assertEquals(List.of("tiercache", "hbase-combined"), bench.roundOrder(2));
    assertEquals(List.of("hbase-combined", "tiercache"), bench.roundOrder(3));
    assertThrows(IllegalArgumentException.class, () -> bench.rounds(0));
  }

  @Test
  void warmups_belowOne_isRefusedNamingTheOption() {
    RealHBase bench = new RealHBase(32L << 20, new int[] {3}, List.of("tiercache"), 600, 2, dir);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> bench.warmups(0));
    assertTrue(e.getMessage().contains("--warmups is 0"), e.getMessage());
    assertSame(bench, bench.warmups(2));
  }

  @Test
  void spread_givesTheMedianGeometricMeanAndRange() {
    List<double[]> odd = List.of(new double[] {1.4, 0.5}, new double[] {0.9, 1.0},
        new double[] {1.1, 2.0});
    assertEquals("1.10x, 1.11x (0.90x to 1.40x)", RealHBase.spread(odd, 0));
    assertEquals("1.00x, 1.00x (0.50x to 2.00x)", RealHBase.spread(odd, 1));
    // an even count: the geometric middle of the two middle values
    List<double[]> even = List.of(new double[] {1.0}, new double[] {4.0});
    assertEquals("2.00x, 2.00x (1.00x to 4.00x)", RealHBase.spread(even, 0));
  }

  @Test
  void unknownSubject_isRefusedByName() {
    RealHBase bench = new RealHBase(32L << 20, new int[] {1}, List.of("nope"), 600, 2, dir);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> bench.subjectKeys("nope"));
    assertTrue(e.getMessage().contains("hbase-lru, hbase-combined or tiercache"), e.getMessage());
  }
}
