/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.contract.TestBlocks;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10, finding 2: the L2's direct memory (index and slot records, and the slabs of
 * {@code offheap}) is counted inside its budget and taken at start-up, so a configuration that
 * does not fit fails there with a message naming {@code hbase.bucketcache.size}, and one that
 * fits never throws {@link OutOfMemoryError} out of {@code cacheBlock}.
 */
class DirectBudgetTest {
  private static final int MB = 1 << 20;
  private static final int[] HBASE_SIZES = CacheSettings.L2_BUCKET_SIZES.defaultValue();

  @TempDir
  Path dir;

  @Test
  void offHeapCapacity_leavesRoomForItsOwnIndex_andFitsTheBudget() {
    SizeClasses classes = new SizeClasses(HBASE_SIZES, 4 * MB);
    for (long budget : new long[] {8L * MB, 2032L * MB, 64L << 30}) {
      long capacity = DirectBudget.offHeapCapacity(budget, 4 * MB, classes);
      long total = capacity + DirectBudget.metadataBytes(capacity, 4 * MB, classes);
      assertTrue(total <= budget, budget + ": " + total);
      long oneMore = capacity + 4 * MB;
      assertTrue(oneMore + DirectBudget.metadataBytes(oneMore, 4 * MB, classes) > budget,
          budget + ": one slab more would still fit");
      assertEquals(0, capacity % (4 * MB));
    }
    // HBase's sizes and 4 MB slabs: about 1.3 % of the budget goes to index and slot records.
    long c = DirectBudget.offHeapCapacity(2032L * MB, 4 * MB, classes);
    assertTrue(c >= 2000L * MB, "2032 MB leaves " + c / MB + " MB of slabs");
  }

  @Test
  void fileEngine_metadataBeyondDirectLimit_refusedBeforeTheFileIsCreated() {
    Path file = dir.resolve("huge.cache");
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.ioengine", "file:" + file);
    conf.set("hbase.bucketcache.size", "1t"); // index and slot records: ~14 GB of direct memory
    SettingException e = assertThrows(SettingException.class, () -> new BucketTier(conf));
    assertEquals("hbase.bucketcache.size", e.key());
    assertTrue(e.getMessage().contains("-XX:MaxDirectMemorySize"), e.getMessage());
    assertFalse(Files.exists(file), "nothing is opened when the memory is not there");
  }

  @Test
  void available_isLimitLessUse() {
    assertEquals(40, DirectBudget.available(100, () -> 60));
    assertEquals(0, DirectBudget.available(100, () -> 160));
    assertTrue(DirectBudget.maxDirectMemory() > 0);
    SettingException e = assertThrows(SettingException.class,
        () -> DirectBudget.check(10L * MB, MB, "test"));
    assertEquals("hbase.bucketcache.size", e.key());
  }

  /**
   * The configuration of the finding in a child JVM: {@code offheap} with a size equal to
   * {@code -XX:MaxDirectMemorySize} and many small blocks written by callers
   * ({@code waitWhenCache}). Before the fix the slabs alone took the whole limit, and the index
   * grew by rehashing inside {@code cacheBlock} until it threw {@link OutOfMemoryError}.
   */
  @Test
  void offHeapSizedToTheDirectLimit_cachesWithoutOutOfMemory_inAChildJvm() throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.add("-XX:MaxDirectMemorySize=64m");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-")) { // the JDK 17 flags HBase needs
        cmd.add(arg);
      }
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Child.class.getName());
    Path out = dir.resolve("child.out");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
        .start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child did not finish");
    String output = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("CHILD OK"), output);
    System.out.println(output.lines().filter(l -> l.startsWith("CHILD")).findFirst().orElse(""));
  }

  /** Fills a 64 MB offheap L2 with 4 KB blocks under a 64 MB direct-memory limit. */
  public static final class Child {
    public static void main(String[] args) throws IOException {
      Configuration conf = new Configuration(false);
      conf.set("hbase.bucketcache.ioengine", "offheap");
      conf.set("hbase.bucketcache.size", "64");
      BucketTier t = new BucketTier(conf);
      int blocks = 20_000; // 4 KB blocks in 5 KB slots: more than the L2 holds
      long served = 0;
      try {
        for (int i = 0; i < blocks; i++) {
          BlockCacheKey key = TestBlocks.key("f" + (i % 50), i * 8192L, BlockType.DATA);
          HFileBlock b = TestBlocks.heap("f" + (i % 50), i * 8192L, 4000, BlockType.DATA);
          t.cacheBlock(key, b, false, true);
          b.release();
        }
        for (int i = 0; i < blocks; i++) {
          BlockCacheKey key = TestBlocks.key("f" + (i % 50), i * 8192L, BlockType.DATA);
          Cacheable c = t.getBlock(key, true, false, true);
          if (c != null) {
            TestBlocks.assertBlock(key, 4000, BlockType.DATA, c);
            c.release();
            served++;
          }
        }
        t.checkInvariants();
      } catch (Throwable e) {
        e.printStackTrace(System.out);
        System.exit(2);
      }
      System.out.println("CHILD OK capacity=" + t.getMaxSize() / MB + "MB blocks="
          + t.getBlockCount() + " served=" + served + " unexpected=" + t.unexpectedFailures());
      if (t.unexpectedFailures() != 0 || served == 0) {
        System.exit(3);
      }
      t.shutdown();
    }
  }
}
