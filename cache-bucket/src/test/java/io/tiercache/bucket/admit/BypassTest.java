/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link Bypass}: the share of the door's losers admitted anyway follows which choice the
 * workload regrets, rejecting or evicting. Single-threaded calls in a fixed order.
 */
class BypassTest {
  /** Horizon 1,024 admissions; every key sampled (ghost tables of 4,096 entries). */
  private static final int BLOCKS = 1024;

  /** Periods end only when the test says ({@link Bypass#adjust}). */
  private static Bypass bypass() {
    return new Bypass(BLOCKS, Long.MAX_VALUE);
  }

  /** One period of losers that are all rejected (random 0.99 is above any share). */
  private static void rejectPeriod(Bypass b, int firstHash, boolean comeBack) {
    for (int i = 0; i < 256; i++) {
      assertFalse(b.loser(firstHash + i, 0.99));
    }
    if (comeBack) {
      for (int i = 0; i < 256; i++) {
        b.missed(firstHash + i);
      }
    }
  }

  private static void evictPeriod(Bypass b, int firstHash, boolean comeBack) {
    for (int i = 0; i < 256; i++) {
      b.admitted();
      b.evicted(firstHash + i);
    }
    if (comeBack) {
      for (int i = 0; i < 256; i++) {
        b.missed(firstHash + i);
      }
    }
  }

  @Test
  void rejectedLosersMissedAgain_raiseTheShare_aStepAPeriod_toTheTopShareAtMost() {
    Bypass b = bypass();
    assertEquals(0, b.share());
    for (int period = 0; period < 12; period++) {
      evictPeriod(b, 1_000_000 + period * 1000, false); // evicted blocks never come back
      rejectPeriod(b, 2_000_000 + period * 1000, true); // rejected ones all do
      b.adjust();
      assertEquals(Math.min(Bypass.MAX, (period + 1) * Bypass.STEP), b.share(), 1e-9,
          "period " + period);
    }
    int admitted = 0;
    for (int i = 0; i < 800; i++) {
      admitted += b.loser(3_000_000 + i, (i % 8) / 8.0) ? 1 : 0;
    }
    assertEquals((int) (800 * Bypass.MAX), admitted, "the top share of the losers goes in");
  }

  @Test
  void evictionsMissedAgain_lowerTheShare_toZero() {
    Bypass b = bypass();
    for (int period = 0; period < 3; period++) {
      evictPeriod(b, 1_000_000 + period * 1000, false);
      rejectPeriod(b, 2_000_000 + period * 1000, true);
      b.adjust();
    }
    assertEquals(Math.min(Bypass.MAX, 3 * Bypass.STEP), b.share(), 1e-9);
    for (int period = 3; period < 10; period++) {
      evictPeriod(b, 1_000_000 + period * 1000, true); // now the victims come back
      rejectPeriod(b, 2_000_000 + period * 1000, false); // and the losers do not
      b.adjust();
    }
    assertEquals(0, b.share(), 1e-9);
  }

  @Test
  void aMissAfterTheHorizon_isNoRegret_andTooFewEventsLeaveTheShare() {
    Bypass b = bypass();
    rejectPeriod(b, 5_000, false);
    for (int i = 0; i < BLOCKS + 1; i++) {
      b.admitted(); // the L2 wrote more blocks than it holds since the rejections
    }
    for (int i = 0; i < 256; i++) {
      b.missed(5_000 + i);
    }
    b.adjust();
    assertEquals(0, b.share(), "no regret within the horizon: the door was right");

    Bypass few = bypass();
    for (int i = 0; i < 20; i++) {
      assertFalse(few.loser(7_000 + i, 0.99));
      few.missed(7_000 + i);
    }
    few.adjust();
    assertEquals(0, few.share(), "20 rejections are too little evidence");
    assertTrue(few.steps() > 0);
  }
}
