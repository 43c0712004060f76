/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.TimeUnit;
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
    long maxSize = t.getMaxSize(); // 8 MB rounded down to whole slabs
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
    assertEquals(maxSize, t.getMaxSize());

    try (RandomAccessFile raf = new RandomAccessFile(dir.resolve("c.bin").toFile(), "rw")) {
      raf.setLength(0); // every read now fails
    }
    assertNull(t.getBlock(TestBlocks.key("f", 0, BlockType.DATA), true, false, true));
    assertTrue(t.isDisabled(), "0 ms tolerated now: the first error disables the tier");
    assertEquals(0, t.unexpectedFailures());
    t.shutdown();
  }

  @Test
  void rebalanceHitPercent_readAtStart_changesOnline_badValueKeepsTheOldOne() {
    BucketTier plain = new BucketTier(conf());
    assertEquals(100, plain.slabs.hitPercent(), "slabs follow hits by default");
    plain.shutdown();
    Configuration start = conf();
    start.set("tiercache.l2.rebalance.hit.percent", "40");
    BucketTier t = new BucketTier(start);
    assertEquals(40, t.slabs.hitPercent());

    Configuration bad = new Configuration(start);
    bad.set("tiercache.l2.rebalance.hit.percent", "101");
    t.onConfigurationChange(bad);
    assertEquals(40, t.slabs.hitPercent(), "rejected: the current value stays");

    Configuration zero = new Configuration(start);
    zero.set("tiercache.l2.rebalance.hit.percent", "0");
    t.onConfigurationChange(zero);
    assertEquals(0, t.slabs.hitPercent());
    assertEquals(0, t.unexpectedFailures());
    t.shutdown();
  }

  @Test
  void protectedPercent_readAtStart_changesOnline_badValueKeepsTheOldOne() {
    BucketTier plain = new BucketTier(conf());
    assertEquals(80, plain.slabs.protectedPercent(), "80 % of each class by default");
    plain.shutdown();
    Configuration start = conf();
    start.set("tiercache.l2.protected.percent", "0");
    BucketTier t = new BucketTier(start);
    assertEquals(0, t.slabs.protectedPercent(), "0: one plain CLOCK per class");

    Configuration bad = new Configuration(start);
    bad.set("tiercache.l2.protected.percent", "96");
    t.onConfigurationChange(bad);
    assertEquals(0, t.slabs.protectedPercent(), "rejected: the current value stays");

    Configuration half = new Configuration(start);
    half.set("tiercache.l2.protected.percent", "50");
    t.onConfigurationChange(half);
    assertEquals(50, t.slabs.protectedPercent());
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

  /**
   * Shortening a long checkpoint interval online applies at once, not after the long interval
   * already scheduled (the 10-minute interval of the IT would otherwise hold for 10 minutes).
   */
  @Test
  void persistInterval_shortenedOnline_nextCheckpointComesAtTheNewInterval() throws Exception {
    Path checkpoint = dir.resolve("c.idx");
    Configuration slow = conf();
    slow.set("hbase.bucketcache.persistent.path", checkpoint.toString());
    slow.set("hbase.bucketcache.persist.intervalinmillis", "3600000");
    BucketTier t = new BucketTier(slow);
    HFileBlock b = TestBlocks.heap("f", 0, 30 * 1024, BlockType.DATA);
    t.cacheBlock(TestBlocks.key("f", 0, BlockType.DATA), b, false, true);
    b.release();
    assertFalse(Files.exists(checkpoint), "an hour to the first checkpoint");

    try (WatchService watch = dir.getFileSystem().newWatchService()) {
      dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
      Configuration fast = new Configuration(slow);
      fast.set("hbase.bucketcache.persist.intervalinmillis", "100");
      long start = System.nanoTime();
      t.onConfigurationChange(fast);
      long deadline = start + TimeUnit.SECONDS.toNanos(30);
      while (!Files.exists(checkpoint)) {
        WatchKey key = watch.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        assertNotNull(key, "no checkpoint within 30 s of the change");
        key.pollEvents();
        key.reset();
      }
    }
    t.shutdown();
  }
}
