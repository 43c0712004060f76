/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.config.SettingException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Issue 10, finding 5: an L1 the heap cannot hold is refused at start-up, naming its key. */
class LruConfigTest {
  private static final long GB = 1L << 30;

  @Test
  void memorySize_largerThanTheHeapAllows_refusedNamingTheKey() {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.memory.size", "1t");
    SettingException e = assertThrows(SettingException.class, () -> LruConfig.from(conf, GB));
    assertEquals("hfile.block.cache.memory.size", e.key());
    assertTrue(e.getMessage().contains("819.2m"), e.getMessage()); // the limit: 0.8 of 1 GB
  }

  @Test
  void heapFraction_aboveWhatHBaseAllows_refusedNamingTheKey() {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.size", "0.9");
    SettingException e = assertThrows(SettingException.class, () -> LruConfig.from(conf, GB));
    assertEquals("hfile.block.cache.size", e.key());
  }

  @Test
  void sizesWithinTheHeapShare_accepted() {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.memory.size", "800m");
    assertEquals(800L << 20, LruConfig.from(conf, GB).maxSize);
    Configuration fraction = new Configuration(false);
    fraction.set("hfile.block.cache.size", "0.4");
    assertEquals((long) (GB * 0.4), LruConfig.from(fraction, GB).maxSize);
  }
}
