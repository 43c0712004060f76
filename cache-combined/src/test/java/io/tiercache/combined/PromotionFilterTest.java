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

class PromotionFilterTest {

  @Test
  void aDataBlockMovesUpAtTheBarAndAMetaBlockAlways() {
    PromotionFilter filter = new PromotionFilter(3, 1024);
    BlockCacheKey data = key("f", 0, BlockType.DATA);
    assertFalse(filter.recordHit(data, false));
    assertFalse(filter.recordHit(data, false));
    assertTrue(filter.recordHit(data, false), "the third hit reaches min hits 3");
    assertTrue(filter.recordHit(key("f", 100, BlockType.LEAF_INDEX), true));
  }

  @Test
  void feedbackRaisesTheBarWhileCopiesEarnLessThanAHitAndLowersItBack() {
    PromotionFilter filter = new PromotionFilter(2, 1024);
    assertEquals(2, filter.bar());
    filter.feedback(512, 100, 0, 0); // a fifth of a hit per copy
    filter.feedback(512, 511, 0, 0);
    assertEquals(4, filter.bar());
    filter.feedback(512, 700, 0, 0); // between one and two hits per copy: keep
    assertEquals(4, filter.bar());
    BlockCacheKey data = key("f", 0, BlockType.DATA);
    for (int i = 1; i < 4; i++) {
      assertFalse(filter.recordHit(data, false), "hit " + i + " is below the raised bar");
    }
    assertTrue(filter.recordHit(data, false));
    filter.feedback(512, 5000, 300, 0); // pays, but more than half thrown away: raise
    assertEquals(5, filter.bar());
    filter.feedback(512, 5000, 200, 0); // pays, a quarter to a half thrown away: keep
    assertEquals(5, filter.bar());
    filter.feedback(512, 1100, 0, 0);
    filter.feedback(512, 5000, 0, 0);
    filter.feedback(512, 5000, 0, 0);
    filter.feedback(512, 5000, 0, 0);
    assertEquals(2, filter.bar(), "never below the setting");
  }

  @Test
  void indexBlocksPushedOutOfTheL1RaiseTheBarByFour() {
    PromotionFilter filter = new PromotionFilter(2, 1024);
    filter.feedback(512, 5000, 0, 1); // copies pay, but one index block went to the L2
    assertEquals(6, filter.bar());
    filter.feedback(512, 5000, 0, 30);
    filter.feedback(512, 5000, 0, 30);
    filter.feedback(512, 5000, 0, 30);
    assertEquals(15, filter.bar());
  }

  @Test
  void theBarNeverPassesTheSketchsCeiling() {
    PromotionFilter filter = new PromotionFilter(14, 1024);
    for (int i = 0; i < 10; i++) {
      filter.feedback(512, 0, 0, 0);
    }
    assertEquals(15, filter.bar());
  }

  @Test
  void anOnlineRiseFromOneCountsHits() {
    PromotionFilter filter = new PromotionFilter(1, 1024);
    assertTrue(filter.recordHit(key("f", 0, BlockType.DATA), false));
    filter.setMinHits(3);
    BlockCacheKey fresh = key("g", 0, BlockType.DATA);
    assertFalse(filter.recordHit(fresh, false));
    assertFalse(filter.recordHit(fresh, false));
    assertTrue(filter.recordHit(fresh, false));
  }
}
