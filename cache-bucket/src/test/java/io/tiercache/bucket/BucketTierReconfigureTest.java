/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Online configuration changes of the L2 ({@code onConfigurationChange}, issue 12). */
class BucketTierReconfigureTest {
  @TempDir
  Path dir;

  private Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.ioengine", "file:" + dir.resolve("c.bin"));
    conf.set("hbase.bucketcache.size", "8");
    conf.set("hbase.bucketcache.ioengine.errors.tolerated.duration", "3600000");
    return conf;
  }

  @Test
  void toleratedDuration_changesOnline_badValueKeepsTheOldOne() throws Exception {
    BucketTier t = new BucketTier(conf());
    HFileBlock b = TestBlocks.heap("f", 0, 30 * 1024, BlockType.DATA);
    t.cacheBlock(TestBlocks.key("f", 0, BlockType.DATA), b, false, true);
    b.release();

    Configuration bad = conf();
    bad.set("hbase.bucketcache.ioengine.errors.tolerated.duration", "-5");
    t.onConfigurationChange(bad); // rejected with the start-up message, nothing thrown

    Configuration zero = conf();
    zero.set("hbase.bucketcache.ioengine.errors.tolerated.duration", "0");
    zero.set("hbase.bucketcache.size", "16"); // start-only: logged, not applied
    t.onConfigurationChange(zero);
    assertEquals(8L << 20, t.getMaxSize());

    try (RandomAccessFile raf = new RandomAccessFile(dir.resolve("c.bin").toFile(), "rw")) {
      raf.setLength(0); // every read now fails
    }
    assertNull(t.getBlock(TestBlocks.key("f", 0, BlockType.DATA), true, false, true));
    assertTrue(t.isDisabled(), "0 ms tolerated now: the first error disables the tier");
    assertEquals(0, t.unexpectedFailures());
    t.shutdown();
  }

  @Test
  void unchangedConfiguration_changesNothing() {
    BucketTier t = new BucketTier(conf());
    t.onConfigurationChange(conf());
    assertFalse(t.isDisabled());
    assertEquals(0, t.unexpectedFailures());
    t.shutdown();
  }
}
