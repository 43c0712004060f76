/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bench.data.BlockLayout;
import io.tiercache.bench.data.BlockSizes;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

class WorkloadTest {
  private static final long MB = 1 << 20;
  private static final BlockLayout LAYOUT = new BlockLayout(BlockSizes.FIXED_64K, 2 * MB, 9 * 8 * MB, 1);

  @Test
  void zipfian_rankZero_isTheMostFrequent() {
    Zipfian z = new Zipfian(1000, Zipfian.THETA);
    int[] counts = new int[1000];
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < 100_000; i++) {
      counts[z.rank(r.nextDouble())]++;
    }
    for (int i = 1; i < counts.length; i++) {
      assertTrue(counts[0] >= counts[i], "rank " + i);
    }
    assertTrue(counts[0] > 100_000 / 20, "rank 0 drew " + counts[0]);
  }

  @Test
  void scenario_parse_roundTrips() {
    assertEquals("hbase-mixed-9x", Scenario.parse("hbase-mixed-9x").name());
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("zipf-64k"));
    assertThrows(IllegalArgumentException.class, () -> Scenario.parse("zipf-32k-3x"));
  }

  @Test
  void workload_ratio_picksFilesHoldingThatManyBytes() {
    Workload w = Workload.of(Scenario.parse("zipf-64k-3x"), LAYOUT, 8 * MB, 1);
    assertTrue(w.bytes() >= 24 * MB);
    assertTrue(w.bytes() < 24 * MB + 3 * MB);
    assertThrows(IllegalArgumentException.class,
        () -> Workload.of(Scenario.parse("zipf-64k-9x"), LAYOUT, 16 * MB, 1));
  }

  @Test
  void stream_sameSeedAndThread_sameBlocks() {
    Workload w = Workload.of(Scenario.parse("scan-64k-9x"), LAYOUT, 8 * MB, 1);
    assertArrayEquals(draw(w.stream(7, 1), 500), draw(w.stream(7, 1), 500));
  }

  @Test
  void hbasePattern_readsIndexBloomThenData() {
    Workload w = Workload.of(Scenario.parse("hbase-64k-1x"), LAYOUT, 8 * MB, 1);
    AccessStream s = w.stream(3, 0);
    int[] ids = new int[AccessStream.MAX_READS];
    for (int i = 0; i < 200; i++) {
      assertEquals(3, s.next(ids));
      assertEquals(BlockType.LEAF_INDEX, LAYOUT.type(ids[0]));
      assertEquals(BlockType.BLOOM_CHUNK, LAYOUT.type(ids[1]));
      assertEquals(BlockType.DATA, LAYOUT.type(ids[2]));
      assertTrue(ids[2] < w.blocks());
    }
  }

  @Test
  void scanPattern_everyFourthRead_walksTheColdHalfInFileOrder() {
    Workload w = Workload.of(Scenario.parse("scan-64k-3x"), LAYOUT, 8 * MB, 1);
    Set<Integer> cold = new HashSet<>();
    for (int i = 0; i < w.coldBlocks(); i++) {
      cold.add(LAYOUT.dataBlock(w.coldOrdinal(i)));
    }
    assertEquals(w.dataBlocks() - w.dataBlocks() / 2, cold.size());
    AccessStream s = w.stream(5, 0);
    int[] ids = new int[AccessStream.MAX_READS];
    int previous = -1;
    int wraps = 0;
    int scans = 0;
    for (int op = 1; op <= 4000; op++) {
      s.next(ids);
      if (op % Workload.SCAN_EVERY == 0) {
        assertTrue(cold.contains(ids[0]), "scan read " + ids[0] + " is not cold");
        wraps += ids[0] < previous ? 1 : 0;
        previous = ids[0];
        // The stream says where in the pass it read: the pass's next block each time.
        assertEquals(scans % w.coldBlocks(), s.lastScanPosition(), "op " + op);
        assertEquals(LAYOUT.dataBlock(w.coldOrdinal(s.lastScanPosition())), ids[0]);
        scans++;
      } else {
        assertEquals(-1, s.lastScanPosition(), "op " + op + " is not a scan read");
      }
    }
    assertTrue(wraps <= scans / w.coldBlocks() + 1, wraps + " wraps");
    assertEquals(w.coldBlocks(), s.scanPass());
    // The second thread starts an eighth of the pass further on.
    AccessStream second = w.stream(5, 1);
    for (int op = 1; op <= Workload.SCAN_EVERY; op++) {
      second.next(ids);
    }
    assertEquals(w.coldBlocks() / 8, second.lastScanPosition());
  }

  private static int[] draw(AccessStream s, int n) {
    int[] out = new int[n];
    int[] ids = new int[AccessStream.MAX_READS];
    for (int i = 0; i < n; i++) {
      s.next(ids);
      out[i] = ids[0];
    }
    return out;
  }
}
