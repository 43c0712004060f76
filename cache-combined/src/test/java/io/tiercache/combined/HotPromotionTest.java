/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.config.SettingException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** {@code tiercache.combined.hot.promotion}'s values and their names. */
class HotPromotionTest {
  @Test
  void everyValueReadsBackFromItsKey_andMoveIsTheDefault() {
    Configuration conf = new Configuration(false);
    assertEquals(HotPromotion.MOVE, HotPromotion.from(conf));
    for (HotPromotion p : HotPromotion.values()) {
      conf.set("tiercache.combined.hot.promotion", p.key());
      assertEquals(p, HotPromotion.from(conf), p.key());
    }
    assertEquals("move-on-hit", HotPromotion.MOVE_ON_HIT.key());
    assertFalse(HotPromotion.COPY.moves());
    assertTrue(HotPromotion.MOVE.moves());
    assertTrue(HotPromotion.MOVE_ON_HIT.moves());
  }

  @Test
  void anUnknownValueNamesTheKeyAndTheValues() {
    Configuration conf = new Configuration(false);
    conf.set("tiercache.combined.hot.promotion", "move_on_hit");
    SettingException e = assertThrows(SettingException.class, () -> HotPromotion.from(conf));
    assertEquals("tiercache.combined.hot.promotion", e.key());
    assertTrue(e.getMessage().contains("copy, move or move-on-hit"), e.getMessage());
  }
}
