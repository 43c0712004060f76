/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full checkpoint streams the index while writers publish into the same files: it must never
 * wait for a lock a writer holds while that writer waits for the checkpoint (the checkpoint
 * visits a file's table under its read lock, and a writer takes the file's entry monitor before
 * the table's write lock; found by the {@code scale} run, where the fill stopped for good).
 */
class CheckpointWhilePublishingTest {
  private static final int MB = 1 << 20;

  @TempDir
  Path dir;

  @Test
  void fullCheckpoints_whileWritersPublishIntoTheSameFiles_neverDeadlock() {
    BucketTier t = BucketTier.builder().ioEngine("file:" + dir.resolve("l2.cache"))
        .capacity(64L * MB).slabSize(MB).bucketSizes(5 * 1024).writers(3, 64)
        .persistentPath(dir.resolve("index.ckpt").toString()).persistIntervalMs(Integer.MAX_VALUE)
        .journalCompactPercent(10).admission("all").build();
    boolean finished = false;
    try {
      assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
        AtomicBoolean done = new AtomicBoolean();
        Thread writer = new Thread(() -> {
          for (int i = 0; i < 12_000; i++) {
            BlockCacheKey key = TestBlocks.key("ckpt-" + (i % 500), i * 10_000L, BlockType.DATA);
            HFileBlock b = TestBlocks.heap(key.getHfileName(), key.getOffset(), 3_000,
                BlockType.DATA);
            t.cacheBlock(key, b, false, false);
            b.release();
          }
          done.set(true);
        });
        writer.start();
        int checkpoints = 0;
        while (!done.get()) {
          t.checkpoint(); // compaction at 10 %: most are full checkpoints
          checkpoints++;
        }
        writer.join();
        assertTrue(t.flush(60_000), "the writers drained");
        assertTrue(checkpoints > 0);
      }, "a checkpoint and the writers deadlocked");
      finished = true;
    } finally {
      if (finished) {
        t.shutdown(); // after a deadlock it would wait for the stuck writers forever
      }
    }
  }
}
