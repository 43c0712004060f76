/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;

/**
 * The child JVM of {@link CheckpointCrashTest}: caches and evicts blocks on a checkpointed L2
 * ({@code file}, {@code files} or {@code mmap}) without end, until the parent kills it with
 * SIGKILL. Prints {@code P i live} after each write, {@code C i} just before a checkpoint and
 * {@code D i live} after it; checkpoints come every 20–220 writes (seeded).
 *
 * <p>Usage: {@code CheckpointCrashWriter KIND DIR SEED}.
 */
public final class CheckpointCrashWriter {
  static final int MB = 1 << 20;
  static final int[] SIZES = {5 * 1024, 33 * 1024, 65 * 1024};

  private CheckpointCrashWriter() {}

  static String engine(String kind, Path dir) {
    switch (kind) {
      case "file":
        return "file:" + dir.resolve("l2.cache");
      case "files":
        return "files:" + dir.resolve("l2-a.cache") + "," + dir.resolve("l2-b.cache");
      case "mmap":
        return "mmap:" + dir.resolve("l2.mmap");
      default:
        throw new IllegalArgumentException("engine kind " + kind);
    }
  }

  /** The tier the child writes and the parent reopens: 4 slabs, explicit checkpoints only. */
  static BucketTier open(String kind, Path dir) {
    BucketTier t = BucketTier.builder().ioEngine(engine(kind, dir)).capacity(4L * MB)
        .slabSize(MB).bucketSizes(SIZES).writers(1, 8)
        .persistentPath(dir.resolve("l2.ckpt").toString()).persistIntervalMs(Integer.MAX_VALUE)
        .build();
    if (!t.waitForCacheInitialization(60_000)) {
      throw new AssertionError("the background restore did not finish in 60 s");
    }
    return t;
  }

  static BlockCacheKey key(int i) {
    return TestBlocks.key("ckpt-crash-" + (i % 5), i * 70_000L, BlockType.DATA);
  }

  /** Payload size of block i: two size classes, so slabs move between classes too. */
  static int size(int i) {
    return i % 3 == 0 ? 20_000 : 3_000;
  }

  public static void main(String[] args) throws Exception {
    BucketTier t = open(args[0], Paths.get(args[1]));
    SplittableRandom rnd = new SplittableRandom(Long.parseLong(args[2]));
    int nextCheckpoint = 20 + rnd.nextInt(200);
    for (int i = 0; i < 10_000_000; i++) {
      HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), size(i),
          BlockType.DATA);
      t.cacheBlock(key(i), b, false, true);
      b.release();
      if (i > 10 && rnd.nextInt(4) == 0) {
        t.evictBlock(key(i - 1 - rnd.nextInt(10)));
      }
      System.out.println("P " + i + " " + t.getBlockCount());
      if (i == nextCheckpoint) {
        System.out.println("C " + i);
        System.out.flush();
        t.checkpoint();
        System.out.println("D " + i + " " + t.getBlockCount());
        nextCheckpoint = i + 20 + rnd.nextInt(200);
      }
      System.out.flush();
    }
  }
}
