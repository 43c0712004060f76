/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The admission filter's memory of its decisions: what is remembered, once, and for how long. */
class RegretsTest {
  @Test
  void aRememberedKey_isRegrettedOnce_asTheKindOfItsDecision() {
    Regrets r = new Regrets(1000);
    r.remember(11, Regrets.REJECTED);
    r.remember(22, Regrets.DISPLACED);
    r.remember(44, Regrets.REJECTED_REREAD);
    r.remember(55, Regrets.DISPLACED_REREAD);
    assertEquals(-1, r.regret(33), "never remembered");
    assertEquals(Regrets.REJECTED, r.regret(11));
    assertEquals(-1, r.regret(11), "a regret is counted once");
    assertEquals(Regrets.DISPLACED, r.regret(22));
    assertEquals(-1, r.regret(22));
    assertEquals(-1, r.hit(44), "a hit counts winners only");
    assertEquals(Regrets.REJECTED_REREAD, r.regret(44), "the kind's third bit is kept");
    assertEquals(Regrets.DISPLACED_REREAD, r.regret(55));
    assertEquals(1, r.decided(Regrets.REJECTED_REREAD, 0));
    assertEquals(1, r.regretted(Regrets.DISPLACED_REREAD, 0));
  }

  @Test
  void aWinner_returnsOnAHitOnly_andTheVictimItBeat_onAMiss() {
    Regrets r = new Regrets(1000);
    r.note(11, Regrets.WON);
    r.note(22, Regrets.BEATEN);
    assertEquals(0, r.decisions(), "winners and the victims they beat are not decisions");
    r.remember(33, Regrets.REJECTED);
    assertEquals(-1, r.regret(11), "a winner that is missed has not returned");
    assertEquals(-1, r.hit(22), "a hit counts winners only");
    assertEquals(-1, r.hit(33));
    assertEquals(Regrets.WON, r.hit(11));
    assertEquals(-1, r.hit(11), "counted once");
    assertEquals(Regrets.BEATEN, r.regret(22));
    assertEquals(Regrets.REJECTED, r.regret(33));
    assertEquals(1, r.regretted(Regrets.WON, 0));
    assertEquals(1, r.regretted(Regrets.BEATEN, 0));
    assertEquals(1, r.decided(Regrets.WON, 0));
  }

  @Test
  void theSize_isThePowerOfTwoAtOrAboveTheBlocks_withinItsBounds() {
    assertEquals(Regrets.MIN_SIZE, new Regrets(1).size());
    assertEquals(4096, new Regrets(3591).size());
    assertEquals(4096, new Regrets(4096).size());
    assertEquals(Regrets.MAX_SIZE, new Regrets(1L << 40).size());
  }

  /** Keys from 2 up whose entries differ from each other's and from key 1's. */
  private static int[] distinct(Regrets r, int count) {
    int[] keys = new int[count];
    Set<Integer> used = new HashSet<>();
    used.add(r.slot(1));
    for (int k = 2, n = 0; n < count; k++) {
      if (used.add(r.slot(k))) {
        keys[n++] = k;
      }
    }
    return keys;
  }

  @Test
  void aKey_isRememberedForHalfTheTableOfDecisions_andForgottenAfterAWholeTable() {
    int[] keys = distinct(new Regrets(Regrets.MIN_SIZE), Regrets.MIN_SIZE - 1);
    int half = Regrets.MIN_SIZE / 2;

    Regrets r = new Regrets(Regrets.MIN_SIZE);
    r.remember(1, Regrets.DISPLACED);
    for (int i = 0; i < half - 1; i++) {
      r.remember(keys[i], Regrets.REJECTED);
    }
    assertEquals(Regrets.DISPLACED, r.regret(1), "within the generation after its own");

    Regrets s = new Regrets(Regrets.MIN_SIZE);
    s.remember(1, Regrets.DISPLACED);
    for (int i = 0; i < Regrets.MIN_SIZE - 1; i++) {
      s.remember(keys[i], Regrets.REJECTED);
    }
    assertEquals(-1, s.regret(1), "two generations later it is forgotten");
    assertEquals(Regrets.MIN_SIZE, s.decisions());
  }

  @Test
  void aGeneration_isFinalAtTheEndOfTheNext_withItsDecisionsAndRegretsCounted() {
    int half = Regrets.MIN_SIZE / 2;
    int[] keys = distinct(new Regrets(Regrets.MIN_SIZE), 2 * half - 1);
    Regrets r = new Regrets(Regrets.MIN_SIZE);
    assertEquals(-1, r.remember(1, Regrets.REJECTED));
    for (int i = 1; i < half - 1; i++) {
      assertEquals(-1, r.remember(keys[i], i % 4 == 0 ? Regrets.DISPLACED : Regrets.REJECTED));
    }
    assertEquals(Regrets.REJECTED, r.regret(1));
    assertEquals(Regrets.DISPLACED, r.regret(keys[4]));
    assertEquals(63, r.remember(keys[half - 1], Regrets.REJECTED), "generation 0 ends: -1 final");
    for (int i = half; i < 2 * half - 1; i++) {
      assertEquals(-1, r.remember(keys[i], Regrets.REJECTED));
    }
    assertEquals(-1, r.regret(keys[4]), "counted once");
    assertEquals(0, r.remember(keys[0], Regrets.REJECTED), "generation 1 ends: 0 is final");
    long displaced = (half - 2) / 4; // i = 4, 8, ... below half - 1
    assertEquals(half - displaced, r.decided(Regrets.REJECTED, 0));
    assertEquals(displaced, r.decided(Regrets.DISPLACED, 0));
    assertEquals(1, r.regretted(Regrets.REJECTED, 0));
    assertEquals(1, r.regretted(Regrets.DISPLACED, 0));
    assertEquals(half, r.decided(Regrets.REJECTED, 1));
  }
}
