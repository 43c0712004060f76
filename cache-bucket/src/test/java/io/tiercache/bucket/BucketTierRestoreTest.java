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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm restart runs off the start-up path (issue 12): the tier is built at once, serves
 * what is restored so far and nothing else, drops inserts while the restore runs, and an
 * eviction made meanwhile holds after the restore. The restore is paced by the test (it runs
 * the restore task when it chooses), so each state is observed deterministically.
 */
class BucketTierRestoreTest {
  private static final int KB = 1024;
  private static final int MB = 1 << 20;
  private static final int BLOCKS = 40;

  @TempDir
  Path dir;

  /** An executor that keeps the tasks it is given until the test runs them. */
  private static final class Paced implements Executor {
    final List<Runnable> tasks = new ArrayList<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    void runAll() {
      tasks.forEach(Runnable::run);
      tasks.clear();
    }
  }

  private BucketConfig config() {
    return new BucketConfig("file:" + dir.resolve("c.bin"), 8L * MB, new int[] {17 * KB},
        MB, 1, 64, dir.resolve("c.ckpt").toString(), 3_600_000, 60_000, "dax");
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("hf", i * 100_000L, BlockType.DATA);
  }

  private static void put(BucketTier t, int i) {
    HFileBlock b = TestBlocks.heap("hf", i * 100_000L, 12 * KB, BlockType.DATA);
    t.cacheBlock(key(i), b, false, true);
    b.release();
  }

  @Test
  void restoreInTheBackground_servesOnlyWhatIsRestored_dropsInserts_keepsEvictions() {
    BucketTier first = new BucketTier(config(), "L2", ByteBuffAllocator.HEAP);
    assertTrue(first.isRestored(), "nothing to restore on a first start");
    for (int i = 0; i < BLOCKS; i++) {
      put(first, i);
    }
    first.shutdown(); // writes the checkpoint

    Paced paced = new Paced();
    BucketTier t = new BucketTier(config(), "L2", ByteBuffAllocator.HEAP,
        BucketTier::openEngine, paced);
    assertFalse(t.isRestored(), "the constructor returns before the restore runs");
    assertFalse(t.waitForCacheInitialization(1));
    assertTrue(t.isCacheEnabled(), "a restoring tier serves what it has");
    assertNull(t.getBlock(key(0), true, false, true), "not restored yet: a miss");
    put(t, BLOCKS + 1);
    assertEquals(1, t.insertsDroppedWhileRestoring());
    t.evictBlock(key(5)); // before the restore reached it
    assertEquals(1, paced.tasks.size());

    paced.runAll();

    assertTrue(t.isRestored());
    assertTrue(t.waitForCacheInitialization(0));
    assertEquals(BLOCKS - 1, t.getBlockCount(), "all but the evicted block are back");
    assertNull(t.getBlock(key(5), true, false, true), "the eviction held through the restore");
    for (int i = 0; i < BLOCKS; i++) {
      if (i == 5) {
        continue;
      }
      Cacheable got = t.getBlock(key(i), true, false, true);
      assertNotNull(got, "block " + i);
      TestBlocks.assertBlock(key(i), 12 * KB, BlockType.DATA, got);
      got.release();
    }
    put(t, BLOCKS + 2);
    assertEquals(BLOCKS, t.getBlockCount(), "inserts are taken again");
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void shutdownWhileRestoring_waitsForTheRestore_andKeepsTheCheckpoint() {
    BucketTier first = new BucketTier(config(), "L2", ByteBuffAllocator.HEAP);
    for (int i = 0; i < BLOCKS; i++) {
      put(first, i);
    }
    first.shutdown();

    BucketTier second = new BucketTier(config(), "L2", ByteBuffAllocator.HEAP);
    second.shutdown(); // the restore may still run: shutdown waits for it, then checkpoints
    assertTrue(second.isRestored());

    BucketTier third = new BucketTier(config(), "L2", ByteBuffAllocator.HEAP);
    assertTrue(third.waitForCacheInitialization(60_000));
    assertEquals(BLOCKS, third.getBlockCount(), "nothing was lost by the early shutdown");
    third.shutdown();
  }
}
