/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.admit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which reads the admission filter takes for re-reads: a second lookup within the window. */
class RecencyTest {
  /** An L2 of 4,096 blocks: a window of 4,096 lookups, ticks of 64. */
  private static final int BLOCKS = 4096;
  private static final int TICK = BLOCKS / Recency.TICKS_PER_WINDOW;

  /** Looks up {@code count} keys that do not share {@code kept}'s entry. */
  private static void others(Recency r, int kept, int count) {
    for (int k = 1_000_000, n = 0; n < count; k++) {
      if (r.slot(k) != r.slot(kept)) {
        r.lookedUp(k);
        n++;
      }
    }
  }

  @Test
  void aSecondLookupWithinTheWindow_isAReread_theFirstIsNot() {
    Recency r = new Recency(BLOCKS);
    assertFalse(r.reread(7), "never looked up");
    r.lookedUp(7);
    assertFalse(r.reread(7), "a first read");
    others(r, 7, BLOCKS - 2 * TICK);
    r.lookedUp(7);
    assertTrue(r.reread(7), "read again within the window");
    r.lookedUp(7);
    assertTrue(r.reread(7));
  }

  @Test
  void aLookupMoreThanAWindowAfterTheLast_isAFirstRead() {
    Recency r = new Recency(BLOCKS);
    r.lookedUp(7);
    r.lookedUp(7);
    assertTrue(r.reread(7));
    others(r, 7, BLOCKS + 2 * TICK);
    r.lookedUp(7);
    assertFalse(r.reread(7), "the last read was more than a window ago");
  }

  @Test
  void aKeyWhoseEntryAnotherTook_looksLikeAFirstRead_andNeverTheOther() {
    Recency r = new Recency(BLOCKS);
    int rival = 8;
    while (r.slot(rival) != r.slot(7)) {
      rival++;
    }
    r.lookedUp(7);
    r.lookedUp(7);
    r.lookedUp(rival);
    assertFalse(r.reread(7), "its entry now names the rival");
    assertFalse(r.reread(rival), "the rival's own first read");
    r.lookedUp(7);
    assertFalse(r.reread(7), "the memory is lossy: a lost entry is a first read");
  }

  @Test
  void theSize_isThePowerOfTwoAtOrAboveTheBlocks_withinItsBounds() {
    assertEquals(Regrets.MIN_SIZE, new Recency(1).size());
    assertEquals(4096, new Recency(3591).size());
    assertEquals(Regrets.MAX_SIZE, new Recency(1L << 40).size());
  }
}
