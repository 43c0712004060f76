/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void step_equalCells_etaIsMeanCellTimeTimesCellsLeft() {
    AtomicLong clock = new AtomicLong(5 * SECOND);
    Progress p = new Progress(4, 4, clock::get);
    clock.addAndGet(30 * SECOND);
    assertEquals("[1/4, elapsed 30s, ETA 1m30s]", p.step());
    clock.addAndGet(30 * SECOND);
    assertEquals("[2/4, elapsed 1m00s, ETA 1m00s]", p.step());
    clock.addAndGet(60 * SECOND);
    p.step();
    clock.addAndGet(SECOND);
    assertEquals("[4/4, elapsed 2m01s, done]", p.step());
  }

  @Test
  void step_weightedCells_etaFollowsCost() {
    AtomicLong clock = new AtomicLong();
    Progress p = new Progress(2, 4, clock::get);
    clock.addAndGet(10 * SECOND);
    // The first cell was a quarter of the work: three quarters left take 30 s.
    assertEquals("[1/2, elapsed 10s, ETA 30s]", p.step(1));
  }

  @Test
  void skip_oneOffWork_countsInElapsedButNotInTheRate() {
    AtomicLong clock = new AtomicLong();
    Progress p = new Progress(3, 3, clock::get);
    clock.addAndGet(60 * SECOND);
    p.skip(50 * SECOND); // a dataset written before the first cell
    assertEquals("[1/3, elapsed 1m00s, ETA 20s]", p.step());
  }

  @Test
  void duration_formats() {
    assertEquals("0s", Progress.duration(0));
    assertEquals("59s", Progress.duration(59 * SECOND));
    assertEquals("1m05s", Progress.duration(65 * SECOND));
    assertEquals("2h03m", Progress.duration((2 * 3600 + 3 * 60 + 7) * SECOND));
  }
}
