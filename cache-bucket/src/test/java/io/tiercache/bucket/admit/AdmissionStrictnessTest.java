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
 * The admission filter's strictness: when the candidates that win their duel are read again less
 * often than the victims they displace (uniform reads: the estimates differ by chance, and a
 * winner is counted only while resident), a winner must beat its victim by a margin, which cuts
 * the writes; when winners are read again far more often, the margin falls back to Caffeine's
 * rule. Single-threaded, and the random admission of warm losers never draws, so every decision
 * is fixed.
 */
class AdmissionStrictnessTest {
  private static final int BLOCKS = 1024;
  private static final int GENERATION = BLOCKS / 2;
  private static final long BLOCK = 65_536; // offsets as an HFile's: keys' hashes far apart

  private static BlockCacheKey key(String file, long offset) {
    return new BlockCacheKey(file, offset, true, BlockType.DATA);
  }

  private static Admission admission() {
    return new Admission("tinylfu", BLOCKS, () -> 1); // the 1/128 draw for warm losers: never
  }

  /**
   * One duel a candidate seen {@code sightings} times can win, against a victim never seen: if it
   * wins, either the winner is hit afterwards ({@code winnerReadAgain}) or the victim it
   * displaced is missed; and one duel a candidate never seen loses (losing decisions end the
   * generations over which the filter learns). Returns whether the first candidate was admitted.
   */
  private static boolean decide(Admission a, int i, int sightings, boolean winnerReadAgain) {
    BlockCacheKey candidate = key("candidate.hfile", i * BLOCK);
    for (int s = 0; s < sightings; s++) {
      a.lookedUp(candidate);
    }
    boolean admitted = a.admits(candidate, "victim.hfile", i * BLOCK);
    if (admitted && winnerReadAgain) {
      a.lookedUp(candidate);
      a.hit(candidate);
    } else if (admitted) {
      a.missed(key("victim.hfile", i * BLOCK));
    }
    a.lookedUp(key("read.hfile", i * BLOCK));
    a.admits(key("loser.hfile", i * BLOCK), "read.hfile", i * BLOCK);
    return admitted;
  }

  @Test
  void winnersReadAgainLessThanTheirVictims_raiseTheMargin_andTheWritesStop() {
    Admission a = admission();
    assertEquals(0, a.margin(), "Caffeine's rule first");
    assertTrue(decide(a, 0, 3, false), "three sightings against none win");
    int i = 1;
    for (; i < 40 * GENERATION && a.margin() < 3; i++) {
      decide(a, i, 3, false); // the victims are read again, the winners are not
    }
    assertEquals(3, a.margin(), "after " + i + " decisions");
    int admitted = 0;
    for (int n = 0; n < 1000; n++, i++) {
      if (decide(a, i, 3, false)) {
        admitted++;
      }
    }
    // at margin 3 a candidate seen 3 times beats no victim: the leniency's 1/64 gets in, and the
    // candidates whose estimate a sketch collision raised (one pair in eight here has a count
    // before its first read); at margin 0 all 1,000 would
    assertTrue(admitted <= 50, "admitted " + admitted + " at margin " + a.margin());
  }

  @Test
  void winnersReadAgainRatherThanTheirVictims_keepOrBringBackCaffeinesRule() {
    Admission a = admission();
    int admitted = 0;
    int decisions = 20 * GENERATION;
    for (int i = 0; i < decisions; i++) {
      if (decide(a, i, 3, true)) {
        admitted++;
      }
      assertEquals(0, a.margin(), "decision " + i);
    }
    // all but the few whose victim's estimate a sketch collision raised to the candidate's
    assertTrue(admitted >= decisions * 0.95, "admitted " + admitted + " of " + decisions);
    Admission b = admission();
    int i = 0;
    for (; i < 40 * GENERATION && b.margin() < 3; i++) {
      decide(b, i, 4, false);
    }
    assertEquals(3, b.margin());
    int end = i + 40 * GENERATION;
    for (; i < end && b.margin() > 0; i++) {
      decide(b, i, 4, true); // four sightings still beat the margin of 3; winners read again
    }
    assertEquals(0, b.margin(), "after " + i + " decisions");
  }
}
