/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.SplittableRandom;
import java.util.StringJoiner;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;

/**
 * The child JVM of {@link JournalCrashTest}: churns a journaled L2 (inserts, explicit
 * evictions) and syncs its journal every 20 to 60 writes ({@code checkpoint()}), with
 * compaction at 10% so full checkpoints happen between syncs too. Prints {@code P i} after
 * each write, {@code E k} before evicting key k, and after each sync {@code S i bytes full
 * changes keys} (the persistence bytes that run wrote, whether it was a full checkpoint, the
 * publications and removals since the last sync, and every key the tier then holds). The
 * capacity holds every block written, so only explicit evictions remove any.
 *
 * <p>Usage: {@code JournalCrashWriter KIND DIR SEED}.
 */
public final class JournalCrashWriter {
  static final int MB = 1 << 20;
  static final int SIZE = 3_000;
  static final int MAX_KEYS = 1_500;

  private JournalCrashWriter() {}

  /** The tier the child writes and the parent reopens: explicit syncs only. */
  static BucketTier open(String kind, Path dir) {
    BucketTier t = BucketTier.builder().ioEngine(CheckpointCrashWriter.engine(kind, dir))
        .capacity(8L * MB).slabSize(MB).bucketSizes(5 * 1024).writers(1, 8)
        .persistentPath(dir.resolve("l2.ckpt").toString()).persistIntervalMs(Integer.MAX_VALUE)
        .journalCompactPercent(10).build();
    if (!t.waitForCacheInitialization(60_000)) {
      throw new AssertionError("the background restore did not finish in 60 s");
    }
    return t;
  }

  static BlockCacheKey key(int i) {
    return TestBlocks.key("journal-crash-" + (i % 7), i * 30_000L, BlockType.DATA);
  }

  public static void main(String[] args) throws Exception {
    BucketTier t = open(args[0], Paths.get(args[1]));
    SplittableRandom rnd = new SplittableRandom(Long.parseLong(args[2]));
    int nextSync = 20 + rnd.nextInt(40);
    int changes = 0;
    for (int i = 0; i < MAX_KEYS; i++) {
      HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), SIZE,
          BlockType.DATA);
      t.cacheBlock(key(i), b, false, true);
      b.release();
      changes++;
      if (i > 10 && rnd.nextInt(3) == 0) {
        int k = i - 1 - rnd.nextInt(10);
        System.out.println("E " + k);
        System.out.flush();
        if (t.evictBlock(key(k))) {
          changes++;
        }
      }
      System.out.println("P " + i);
      if (i == nextSync) {
        long before = t.persistWrites()[0];
        long full = t.persistWrites()[1];
        t.flush(10_000);
        t.checkpoint();
        StringJoiner keys = new StringJoiner(",");
        for (int k = 0; k <= i; k++) {
          Cacheable got = t.getBlock(key(k), true, false, false);
          if (got != null) {
            got.release();
            keys.add(Integer.toString(k));
          }
        }
        System.out.println("S " + i + " " + (t.persistWrites()[0] - before) + " "
            + (t.persistWrites()[1] > full) + " " + changes + " " + keys);
        changes = 0;
        nextSync = i + 20 + rnd.nextInt(40);
      }
      System.out.flush();
    }
  }
}
