/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link HFiles}' id lookup: every live file is found by its id in O(1) whatever ids came and
 * went (a long-lived file among thousands of short-lived ones is the case that matters: CLOCK
 * evictions name their block's file by id), and a dropped file's id finds nothing.
 */
class HFilesTest {
  /** Blocks as a bare count, so tests add and remove without keys. */
  static final class Count implements HFiles.Blocks {
    int n;

    @Override
    public int size() {
      return n;
    }

    @Override
    public long heapBytes() {
      return 16;
    }
  }

  private static HFiles.Entry<Count> add(HFiles<Count> files, String name) {
    while (true) {
      HFiles.Entry<Count> e = files.open(name);
      synchronized (e) {
        if (!e.isDead()) {
          e.blocks.n++;
          files.added(e, 10, true, "r");
          return e;
        }
      }
    }
  }

  private static void drop(HFiles<Count> files, HFiles.Entry<Count> e) {
    synchronized (e) {
      while (e.blocks.n > 0) {
        e.blocks.n--;
        files.removed(e, 10, true);
      }
    }
  }

  @Test
  void get_byId_findsEveryLiveFileThroughChurn_andNoDroppedOne() {
    long seed = Long.getLong("tiercache.test.seed", 11L);
    SplittableRandom rnd = new SplittableRandom(seed);
    HFiles<Count> files = new HFiles<>(id -> new Count());
    Map<Integer, HFiles.Entry<Count>> live = new HashMap<>();
    List<Integer> dropped = new ArrayList<>();
    HFiles.Entry<Count> old = add(files, "long-lived"); // id 0, outlives 100,000 others
    live.put(old.id, old);
    for (int i = 0; i < 100_000; i++) {
      HFiles.Entry<Count> e = add(files, "f" + i);
      live.put(e.id, e);
      if (live.size() > 500) { // drop a random live file but the long-lived one
        List<Integer> ids = new ArrayList<>(live.keySet());
        int victim = ids.get(rnd.nextInt(ids.size()));
        if (victim != old.id) {
          drop(files, live.remove(victim));
          dropped.add(victim);
        }
      }
      if (i % 9_973 == 0) {
        for (HFiles.Entry<Count> l : live.values()) {
          assertSame(l, files.get(l.id), "seed " + seed + ": live id " + l.id + " at " + i);
        }
      }
    }
    for (HFiles.Entry<Count> l : live.values()) {
      assertSame(l, files.get(l.id), "seed " + seed + ": live id " + l.id);
      assertEquals(l.name, files.nameIfIndexed(l.id));
    }
    for (int id : dropped) {
      assertNull(files.get(id), "seed " + seed + ": dropped id " + id);
    }
    assertNull(files.get(-1));
    assertEquals(live.size(), files.fileCount());
    assertEquals(live.size(), files.blockCount());
    assertEquals(Map.of("r", 10L * live.size()), files.regionBytes());
  }

  @Test
  void dropIfEmpty_openedButNeverAdded_unregisters() {
    HFiles<Count> files = new HFiles<>(id -> new Count());
    HFiles.Entry<Count> e = files.open("x");
    assertSame(e, files.get(e.id));
    synchronized (e) {
      files.dropIfEmpty(e);
      assertTrue(e.isDead());
    }
    assertNull(files.get(e.id));
    assertEquals(-1, files.idOf("x"));
    HFiles.Entry<Count> again = add(files, "x");
    assertTrue(again.id != e.id, "ids are never reused");
  }
}
