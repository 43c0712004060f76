/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class TierCacheSourceTest {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  @Test
  void register_publishesInJmx_secondCacheGetsItsOwnName_unregisterRemovesAndFreesIt()
      throws Exception {
    StatsLogTest.FakeTier tier = new StatsLogTest.FakeTier();
    tier.hits.set(7);
    tier.requests.set(8);
    TableStats tables = new TableStats(10, 100);
    tables.lookup(TableStatsTest.key("default", "t", "r1", "f1", 0), true);
    TierCacheSource first = TierCacheSource.register(List.of(tier), tables,
        () -> Map.of("r1", 123L), Map.of("mode", "exclusive"));
    TierCacheSource second = TierCacheSource.register(List.of(tier), tables, Map::of, Map.of());
    try {
      assertEquals("Hadoop:service=HBase,name=RegionServer,sub=TierCache", first.objectName());
      assertEquals("TierCache-2", second.name());
      ObjectName name = new ObjectName(first.objectName());
      assertTrue(JMX.isRegistered(name), name.toString());
      assertEquals(7L, ((Number) JMX.getAttribute(name, "l2_hitCount")).longValue());
      assertEquals(123L, ((Number) JMX.getAttribute(name, "table_default_t_cachedBytes"))
          .longValue());
      assertEquals(1L, ((Number) JMX.getAttribute(name, "table_default_t_hitCount")).longValue());
      assertEquals("exclusive", JMX.getAttribute(name, "tag.mode"));
      assertTrue(JMX.isRegistered(new ObjectName(second.objectName())));
    } finally {
      first.unregister();
      first.unregister();
      second.unregister();
    }
    assertFalse(JMX.isRegistered(new ObjectName(first.objectName())));
    assertFalse(JMX.isRegistered(new ObjectName(second.objectName())));
    TierCacheSource again = TierCacheSource.register(List.of(tier), tables, Map::of, Map.of());
    try {
      assertEquals("TierCache", again.name(), "the first name is free again");
      assertTrue(JMX.isRegistered(new ObjectName(again.objectName())));
    } finally {
      again.unregister();
    }
  }
}
