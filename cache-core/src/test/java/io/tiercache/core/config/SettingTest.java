/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class SettingTest {
  private static final Setting<Long> SIZE = Setting.bytes("t.size", 1024L, 512L, 1L << 30, "d");
  private static final Setting<Double> FRACTION = Setting.fraction("t.f", 0.5, 0.0, 1.0, "d");
  private static final Setting<Integer> INT = Setting.integer("t.i", 3, 1, 8, "threads", "d");
  private static final Setting<Boolean> BOOL = Setting.bool("t.b", false, "d");

  private static Configuration conf(String key, String value) {
    Configuration c = new Configuration(false);
    c.set(key, value);
    return c;
  }

  @Test
  void get_unsetOrBlank_returnsDefault() {
    assertEquals(1024L, SIZE.get(new Configuration(false)));
    assertEquals(1024L, SIZE.get(conf("t.size", "  ")));
    assertFalse(SIZE.isSet(new Configuration(false)));
  }

  @Test
  void get_validValues_parse() {
    assertEquals(4L << 20, SIZE.get(conf("t.size", "4m")));
    assertEquals(0.25, FRACTION.get(conf("t.f", "0.25")));
    assertEquals(8, INT.get(conf("t.i", "8")));
    assertTrue(BOOL.get(conf("t.b", "TRUE")));
  }

  @Test
  void get_outOfRangeOrGarbage_failsNamingKeyValueAndRange() {
    SettingException e = assertThrows(SettingException.class, () -> SIZE.get(conf("t.size", "2g")));
    assertEquals("t.size: '2g' is not valid; expected a size from 512 to 1g (bytes, or with a "
        + "k/m/g/t suffix)", e.getMessage());
    assertEquals("t.size", e.key());
    e = assertThrows(SettingException.class, () -> FRACTION.get(conf("t.f", "NaN")));
    assertEquals("t.f: 'NaN' is not valid; expected a number from 0.0 to 1.0", e.getMessage());
    e = assertThrows(SettingException.class, () -> INT.get(conf("t.i", "0")));
    assertEquals("t.i: '0' is not valid; expected a whole number from 1 to 8", e.getMessage());
    e = assertThrows(SettingException.class, () -> BOOL.get(conf("t.b", "yes")));
    assertEquals("t.b: 'yes' is not valid; expected true or false", e.getMessage());
  }

  @Test
  void check_programmaticValue_usesSameMessage() {
    SettingException e = assertThrows(SettingException.class, () -> FRACTION.check(1.5));
    assertEquals("t.f: '1.5' is not valid; expected a number from 0.0 to 1.0", e.getMessage());
  }

  @Test
  void cacheSettings_keysAreUniqueAndDefaultsValid() {
    Set<String> keys = new HashSet<>();
    for (Setting<?> s : CacheSettings.all()) {
      assertTrue(keys.add(s.key()), "defined twice: " + s.key());
      assertFalse(s.description().isEmpty(), s.key());
      checkDefault(s);
    }
  }

  private static <T> void checkDefault(Setting<T> s) {
    if (s.defaultValue() != null) {
      s.check(s.defaultValue());
    }
  }

  @Test
  void describe_marksDefaultsAndSetValues() {
    Configuration c = conf(CacheSettings.L1_SINGLE_SHARE.key(), "0.3");
    String line = CacheSettings.describe(c,
        java.util.Arrays.asList(CacheSettings.L1_SINGLE_SHARE, CacheSettings.L1_MULTI_SHARE));
    assertEquals("hbase.lru.blockcache.single.percentage=0.3, "
        + "hbase.lru.blockcache.multi.percentage=0.5 (default)", line);
  }
}
