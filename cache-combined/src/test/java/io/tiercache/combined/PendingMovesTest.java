/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static io.tiercache.core.contract.TestBlocks.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

/** Move-on-hit promotion's record of copies whose L2 slot waits for their first L1 hit. */
class PendingMovesTest {
  @Test
  void firstHit_onlyOncePerPromotion_andNotAfterTheL1LetItGo() {
    PendingMoves moves = new PendingMoves();
    BlockCacheKey a = key("f", 0, BlockType.DATA);
    BlockCacheKey b = key("f", 100_000, BlockType.DATA);
    assertFalse(moves.firstHit(a), "never promoted");
    moves.promoted(a);
    moves.promoted(b);
    assertTrue(moves.firstHit(a), "the first L1 hit frees the L2 copy");
    assertFalse(moves.firstHit(a), "later hits find nothing to move");
    moves.left(b);
    assertFalse(moves.firstHit(b), "handed off before its first hit: its L2 copy stays");
    moves.promoted(a);
    assertTrue(moves.firstHit(a), "promoted again after going back to the L2");
    assertEquals(0, moves.size());
  }

  @Test
  void promoted_whenFull_startsOver_soTheSetStaysBounded() {
    PendingMoves moves = new PendingMoves();
    for (int i = 0; i < PendingMoves.MAX_KEYS + 10; i++) {
      moves.promoted(key("f", i * 100_000L, BlockType.DATA));
    }
    assertEquals(10, moves.size(), "cleared at the bound, then the last ten");
    assertFalse(moves.firstHit(key("f", 0, BlockType.DATA)), "a cleared entry keeps its L2 copy");
    assertTrue(moves.firstHit(key("f", (PendingMoves.MAX_KEYS + 9) * 100_000L, BlockType.DATA)));
  }
}
