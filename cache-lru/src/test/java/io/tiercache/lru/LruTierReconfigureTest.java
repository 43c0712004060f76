/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

/** Online configuration changes of the L1 ({@code onConfigurationChange}, issue 12). */
class LruTierReconfigureTest {
  private static final int KB = 1024;

  private static Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("hfile.block.cache.memory.size", "8m");
    return conf;
  }

  private static boolean cached(LruTier t, long offset, int payload) {
    t.cacheBlock(TestBlocks.key("f", offset, BlockType.DATA),
        TestBlocks.heap("f", offset, payload, BlockType.DATA), false);
    return t.containsBlock(TestBlocks.key("f", offset, BlockType.DATA));
  }

  @Test
  void runtimeSetting_changes_andABadValueKeepsTheOldOne() {
    LruTier t = new LruTier(conf());
    assertTrue(cached(t, 0, 32 * KB));

    Configuration smaller = conf();
    smaller.set("hbase.lru.max.block.size", "16k");
    t.onConfigurationChange(smaller);
    assertFalse(cached(t, 100_000, 32 * KB), "a 32 KB block is now over the largest size");
    assertEquals(1, t.getStats().getFailedInserts());

    Configuration bad = conf();
    bad.set("hbase.lru.max.block.size", "lots");
    t.onConfigurationChange(bad); // rejected: logged, nothing changes, nothing thrown
    assertFalse(cached(t, 200_000, 32 * KB), "the 16k limit stays");
    assertTrue(cached(t, 300_000, 8 * KB));

    Configuration shares = conf();
    shares.set("hbase.lru.blockcache.single.percentage", "0.5");
    shares.set("hbase.lru.blockcache.multi.percentage", "0.6"); // sum 1.35: rejected whole
    t.onConfigurationChange(shares);
    assertEquals(0, t.unexpectedFailures());
    t.checkInvariants();
    t.shutdown();
  }
}
