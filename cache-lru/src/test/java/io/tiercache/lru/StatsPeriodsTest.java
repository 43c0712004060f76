/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * HBase's "past N periods" window ({@code hbase.blockcache.stats.*}): a tier built from a
 * configuration rolls it on HBase's own timer, and its shutdown stops the timer (issue 12).
 */
class StatsPeriodsTest {
  @Test
  void configuredPeriods_rollOnHBasesTimer_stoppedAtShutdown() {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.memory.size", "4m");
    conf.set("hbase.blockcache.stats.periods", "3");
    conf.set("hbase.blockcache.stats.period.minutes", "1");
    LruTier t = new LruTier(conf);
    assertEquals(3, t.getStats().getNumPeriodsInWindow());
    assertNotNull(t.getStats().getMetricsRollerScheduler(), "a roller runs");
    t.getStats().rollMetricsPeriod(); // what the timer does each period: must not throw
    t.shutdown();
    assertTrue(t.getStats().getMetricsRollerScheduler().isShutdown(), "stopped at shutdown");
  }

  @Test
  void tierBuiltInCode_startsNoTimer() {
    LruTier t = LruTier.builder().maxSize(4L << 20).build();
    assertNull(t.getStats().getMetricsRollerScheduler());
    t.shutdown();
  }
}
