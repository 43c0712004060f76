/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FileRegistryTest {
  @Test
  void addRemove_tracksOffsetsPerFile_andIdsAreNeverReused() {
    FileRegistry r = new FileRegistry();
    int a = r.add("a", 0);
    assertEquals(a, r.add("a", 100));
    int b = r.add("b", 0);
    assertNotEquals(a, b);
    assertEquals("a", r.nameOf(a));
    long[] offs = r.offsets("a");
    Arrays.sort(offs);
    assertArrayEquals(new long[] {0, 100}, offs);
    assertTrue(r.remove("a", 0));
    assertTrue(r.remove("a", 100));
    assertEquals(-1, r.idOf("a"));
    assertNull(r.nameOf(a));
    int again = r.add("a", 5);
    assertNotEquals(a, again, "a re-registered file gets a fresh id");
    assertEquals(2, r.fileCount());
    assertEquals(2, r.blockCount());
  }

  @Test
  void randomOps_matchReferenceMap() {
    long seed = 99;
    SplittableRandom rnd = new SplittableRandom(seed);
    FileRegistry r = new FileRegistry();
    Map<String, Set<Long>> ref = new HashMap<>();
    for (int op = 0; op < 50_000; op++) {
      String f = "file-" + rnd.nextInt(200);
      long off = rnd.nextInt(50) * 1000L;
      if (rnd.nextInt(3) > 0) {
        r.add(f, off);
        ref.computeIfAbsent(f, k -> new HashSet<>()).add(off);
      } else {
        Set<Long> s = ref.get(f);
        boolean expected = s != null && s.remove(off);
        if (s != null && s.isEmpty()) {
          ref.remove(f);
        }
        assertEquals(expected, r.remove(f, off), "seed " + seed + " op " + op);
      }
    }
    assertEquals(ref.size(), r.fileCount());
    for (Map.Entry<String, Set<Long>> e : ref.entrySet()) {
      long[] got = r.offsets(e.getKey());
      Arrays.sort(got);
      assertArrayEquals(e.getValue().stream().mapToLong(Long::longValue).sorted().toArray(), got);
      assertEquals(e.getKey(), r.nameOf(r.idOf(e.getKey())));
    }
  }

  @Test
  void concurrentAddRemoveOnSameFiles_endsConsistent() throws Exception {
    FileRegistry r = new FileRegistry();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      long base = t * 1_000_000L;
      fs.add(pool.submit(() -> {
        for (int round = 0; round < 200; round++) {
          for (int i = 0; i < 20; i++) {
            r.add("shared-" + (i % 3), base + i);
          }
          for (int i = 0; i < 20; i++) {
            assertTrue(r.remove("shared-" + (i % 3), base + i));
          }
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    assertEquals(0, r.fileCount());
    assertEquals(0, r.blockCount());
  }

  @Test
  void setRegion_ofAFileAddedWithoutOne_countsItsBytesToTheRegion_once() {
    FileRegistry r = new FileRegistry();
    r.add("restored", 0, 1000, true, null); // as a checkpoint restores it: no path, no region
    r.add("restored", 1000, 500, true, null);
    assertTrue(r.regionBytes().isEmpty());
    assertTrue(r.setRegion("restored", "r1"));
    assertEquals(Map.of("r1", 1500L), r.regionBytes());
    assertFalse(r.setRegion("restored", "r2"), "the first region stays");
    assertFalse(r.setRegion("absent", "r1"), "no entry is made for a file without blocks");
    assertEquals(-1, r.idOf("absent"));
    r.add("restored", 2000, 100, true, null);
    assertEquals(Map.of("r1", 1600L), r.regionBytes());
    r.remove("restored", 0, 1000, true);
    assertEquals(Map.of("r1", 600L), r.regionBytes());
  }
}
