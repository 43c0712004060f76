/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bench.subject.Subject;
import io.tiercache.bench.workload.Scenario;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --rounds}: a subject's runs of a cell become one row of per-measure medians. */
class ResultMedianTest {
  private static Result run(String subject, int round, double seconds, double hit, long p99,
      double fetchP99, String error) {
    Result.Builder b = new Result.Builder();
    b.subject = subject;
    b.vendor = Subject.Vendor.TIERCACHE;
    b.scenario = Scenario.parse("zipf-64k-3x");
    b.missLatencyNanos = 500_000;
    b.ops = 1_000;
    b.reads = 1_000 + round;
    b.seconds = seconds;
    b.hitRatio = hit;
    b.p99 = p99;
    b.fetchP99 = fetchP99;
    b.fetchP999 = 2 * fetchP99;
    b.optHitRatio = 0.9;
    b.round = round;
    b.error = error;
    return b.build();
  }

  @Test
  void oddCount_takesEachMeasuresMiddleValue_fromDifferentRuns() {
    Result m = Result.median(List.of(run("a", 1, 2.0, 0.80, 900, 700, null),
        run("a", 2, 1.0, 0.82, 2_000, 650, null), run("a", 3, 4.0, 0.81, 800, 660, null)));

    assertEquals(2.0, m.seconds);
    assertEquals(500, m.opsPerSecond(), 1e-9);
    assertEquals(0.81, m.hitRatio);
    assertEquals(900, m.p99, "the 2 ms outlier of round 2 is not the row's p99");
    assertEquals(660, m.fetchP99);
    assertEquals(1_320, m.fetchP999);
    assertEquals(1_002, m.reads);
    assertEquals(3, m.rounds);
    assertEquals(0, m.round, "a row of medians is no single run");
    assertEquals(0.9, m.optHitRatio, "the cell's bounds are carried");
    assertEquals("zipf-64k-3x@miss+500us", m.cell());
  }

  @Test
  void evenCount_meansTheMiddleTwo_andSkipsValuesThatDoNotApply() {
    Result m = Result.median(List.of(run("a", 1, 1.0, 0.80, 900, Double.NaN, null),
        run("a", 2, 3.0, 0.84, 1_000, 600, null)));

    assertEquals(2.0, m.seconds);
    assertEquals(0.82, m.hitRatio, 1e-12);
    assertEquals(950, m.p99);
    assertEquals(600, m.fetchP99, "NaN (no miss in a run) is left out, not averaged in");
    assertEquals(2, m.rounds);
    assertTrue(Double.isNaN(Result.median(List.of(run("a", 1, 1, 1, 1, Double.NaN, null),
        run("a", 2, 1, 1, 1, Double.NaN, null))).fetchP99));
  }

  @Test
  void oneRun_isReturnedAsItIs() {
    Result only = run("a", 1, 1.0, 0.8, 900, 700, null);

    assertSame(only, Result.median(List.of(only)));
    assertEquals(1, only.rounds);
    assertEquals(1, only.round);
  }

  @Test
  void aFailedRun_isNeverHiddenByTheRunsThatPassed() {
    Result failed = run("a", 2, 1.0, Double.NaN, 0, Double.NaN, "boom");

    assertSame(failed, Result.median(List.of(run("a", 1, 1.0, 0.8, 900, 700, null), failed,
        run("a", 3, 1.0, 0.8, 900, 700, null))));
  }

  @Test
  void runsOfAnotherSubjectOrCell_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> Result.median(List.of()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Result.median(List.of(run("a", 1, 1, 1, 1, 1, null), run("b", 2, 1, 1, 1, 1,
            null))));
    assertTrue(e.getMessage().contains("runs of a in zipf-64k-3x@miss+500us mixed with b"),
        e.getMessage());
  }
}
