/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

/**
 * The admission filter's leniency: candidates that lose their duel are let in once the ones
 * turned away come back more often than the victims pushed out, and kept out again when that
 * reverses. Single-threaded and without randomness (the random 1/128 admission of warm losers
 * never applies: no candidate here is warm), so every decision is fixed.
 */
class AdmissionLeniencyTest {
  /** A regrets table of 1,024 entries: a generation of 512 decisions, a step at most each. */
  private static final int BLOCKS = 1024;
  private static final int GENERATION = BLOCKS / 2;
  private static final int SCANNER_GAP = 8;
  private static final double MIN = Admission.LENIENCY[0] / 65536.0;
  private static final double MAX = Admission.LENIENCY[Admission.LENIENCY.length - 1] / 65536.0;
  /** Where first reads start (1/2): the tests read the first-read level ({@code leniency()}). */
  private static final double START =
      Admission.LENIENCY[Admission.START[Admission.FIRST]] / 65536.0;

  private static BlockCacheKey key(String file, long offset) {
    return new BlockCacheKey(file, offset, true, BlockType.DATA);
  }

  private static Admission admission() {
    return new Admission("tinylfu", BLOCKS, () -> {
      throw new AssertionError("no candidate here is warm");
    });
  }

  /**
   * One scan-like decision: a new block loses to a block read again now (so it stays stronger
   * through the sketch's aging), and comes back if {@code comesBack}.
   */
  private static boolean scanRead(Admission a, int i, boolean comesBack) {
    a.lookedUp(key("hot", i % 64));
    BlockCacheKey candidate = key("scan", i);
    a.lookedUp(candidate);
    a.inserting(candidate);
    boolean admitted = a.admits(candidate, "hot", i % 64);
    if (comesBack && !admitted) {
      a.missed(candidate);
    }
    return admitted;
  }

  /** Makes the victims {@code hot:0..63} three sightings strong. */
  private static void warmVictims(Admission a) {
    for (int r = 0; r < 3; r++) {
      for (int v = 0; v < 64; v++) {
        a.lookedUp(key("hot", v));
      }
    }
  }

  @Test
  void candidatesTurnedAwayThatComeBack_makeTheFilterLenient_upToItsMostLenientLevel() {
    Admission a = admission();
    warmVictims(a);
    assertEquals(START, a.leniency());
    assertEquals(MIN, a.rereadLeniency());
    assertTrue(!scanRead(a, 0, true), "the first loser is turned away (an even spread)");
    int i = 1;
    for (; i < 30 * GENERATION && a.leniency() < MAX; i++) {
      scanRead(a, i, true);
    }
    assertEquals(MAX, a.leniency(), "after " + i + " decisions");
    int admitted = 0;
    int decisions = 1000;
    for (int n = 0; n < decisions; n++, i++) {
      if (a.leniency() == MAX && scanRead(a, i, true)) {
        admitted++;
      }
    }
    assertEquals(MAX, a.leniency());
    assertTrue(Math.abs(admitted - MAX * decisions) <= 2, "admitted " + admitted);
  }

  @Test
  void victimsPushedOutThatComeBack_bringTheFilterToItsLeastLenient_andKeepItThere() {
    Admission a = admission();
    warmVictims(a);
    int i = 0;
    int end = 30 * GENERATION;
    for (; i < end && a.leniency() > MIN; i++) {
      // the turned away never come back; a victim pushed out by a lenient admission does
      if (scanRead(a, i, false)) {
        a.missed(key("hot", i % 64));
      }
    }
    assertEquals(MIN, a.leniency(), "after " + i + " decisions");
    int decisions = 10 * GENERATION;
    int admitted = 0;
    for (int n = 0; n < decisions; n++, i++) {
      if (scanRead(a, i, false)) {
        admitted++;
        a.missed(key("hot", i % 64));
      }
      assertEquals(MIN, a.leniency(), "decision " + i);
    }
    assertTrue(Math.abs(admitted - MIN * decisions) <= 1, "admitted " + admitted);
  }

  @Test
  void theLeniency_fallsBack_whenTheTurnedAwayStopComingBack() {
    Admission a = admission();
    warmVictims(a);
    int i = 0;
    for (; i < 30 * GENERATION && a.leniency() < MAX; i++) {
      scanRead(a, i, true);
    }
    assertEquals(MAX, a.leniency());
    int end = i + 30 * GENERATION;
    for (; i < end && a.leniency() > MIN; i++) {
      a.lookedUp(key("hot", i % 64));
      BlockCacheKey candidate = key("scan", i);
      a.lookedUp(candidate);
      if (a.admits(candidate, "hot", i % 64)) {
        a.missed(key("hot", i % 64)); // the victim it pushed out is read again
      }
    }
    assertEquals(MIN, a.leniency(), "after " + i + " decisions");
  }

  /**
   * Two scanners over the same range, {@value #SCANNER_GAP} blocks apart: the leading one's read
   * of a block is a first read, and if it is turned away the trailing one misses the block soon
   * after (a regret); the trailing one's read is then a re-read, and is never read again. A
   * victim pushed out comes back one time in four.
   */
  @Test
  void firstReadsThatComeBack_andRereadsThatDoNot_learnLenienciesOfTheirOwn() {
    Admission a = admission();
    warmVictims(a);
    boolean[] admittedFirst = new boolean[SCANNER_GAP];
    int rereads = 0;
    int rereadsAdmitted = 0;
    int steps = 40 * GENERATION;
    for (int i = 0; i < steps; i++) {
      a.lookedUp(key("hot", i % 64));
      BlockCacheKey lead = key("scan", i);
      a.lookedUp(lead);
      a.inserting(lead);
      boolean admitted = a.admits(lead, "hot", i % 64);
      if (admitted && i % 4 == 0) {
        a.missed(key("hot", i % 64));
      }
      if (i >= SCANNER_GAP) {
        BlockCacheKey trail = key("scan", i - SCANNER_GAP);
        a.lookedUp(trail);
        if (admittedFirst[i % SCANNER_GAP]) {
          a.hit(trail);
        } else {
          a.missed(trail);
          a.inserting(trail);
          boolean again = a.admits(trail, "hot", (i + 32) % 64);
          if (i > steps / 2) {
            rereads++;
            rereadsAdmitted += again ? 1 : 0;
          }
        }
      }
      admittedFirst[i % SCANNER_GAP] = admitted;
    }
    assertEquals(MAX, a.leniency(), "the first reads turned away came back");
    assertEquals(MIN, a.rereadLeniency(), "the re-reads turned away never did");
    // at the floor, plus the few whose recency entry another key took meanwhile (a lossy table
    // of 1,024 entries: those look like first reads)
    assertTrue(rereads > 0 && rereadsAdmitted <= rereads / 10,
        rereadsAdmitted + " of " + rereads + " re-reads admitted in the second half");
  }

  @Test
  void allMode_remembersAndLearnsNothing() {
    Admission a = new Admission("all", BLOCKS);
    for (int i = 0; i < 10 * GENERATION; i++) {
      a.missed(key("scan", i));
    }
    assertEquals(1.0, a.leniency(), "all mode lets every block in");
    a.setMode("tinylfu");
    assertEquals(START, a.leniency(), "nothing was learned");
    assertEquals(MIN, a.rereadLeniency(), "nothing was learned");
  }
}
