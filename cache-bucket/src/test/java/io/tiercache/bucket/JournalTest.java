/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The index journal (issue 15): a sync appends the changes since the last one, not the index;
 * a restart applies the journal (up to its first torn or damaged batch) and then the
 * checkpoint's records the journal did not supersede, which must come to the same blocks as the
 * checkpoint followed by the journal: slots reused after the checkpoint and blocks evicted after
 * it come back as the journal says, and nothing is ever served with bytes other than its key's. Each case simulates a crash by
 * copying the files as they are (no shutdown), then reopening them in a new tier.
 * Seed: {@code -Dtiercache.test.seed=N}.
 */
class JournalTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261126L);
  private static final int MB = 1 << 20;
  private static final int SIZE = 3_000;

  @TempDir
  Path dir;

  private String kind;

  private String engine() {
    return CheckpointCrashWriter.engine(kind, dir);
  }

  /** The engine's files, as {@link CheckpointCrashWriter#engine} names them. */
  private List<Path> dataFiles() {
    return kind.equals("files") ? List.of(dir.resolve("l2-a.cache"), dir.resolve("l2-b.cache"))
        : List.of(dir.resolve(kind.equals("file") ? "l2.cache" : "l2.mmap"));
  }

  private Path checkpoint() {
    return dir.resolve("index.ckpt");
  }

  private Path journal() {
    return dir.resolve("index.ckpt.journal");
  }

  private BucketTier open() {
    BucketTier t = BucketTier.builder().ioEngine(engine()).capacity(4L * MB).slabSize(MB)
        .bucketSizes(5 * 1024).writers(1, 8).persistentPath(checkpoint().toString())
        .persistIntervalMs(Integer.MAX_VALUE).build();
    assertTrue(t.waitForCacheInitialization(60_000), "restore did not finish");
    return t;
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("journal-" + (i % 4), i * 10_000L, BlockType.DATA);
  }

  private static void cache(BucketTier t, int from, int to) {
    for (int i = from; i < to; i++) {
      HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), SIZE,
          BlockType.DATA);
      t.cacheBlock(key(i), b, false, true);
      b.release();
    }
  }

  /** Keys of {@code [from, to)} the tier serves, each checked byte for byte. */
  private static List<Integer> served(BucketTier t, int from, int to) {
    List<Integer> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      Cacheable got = t.getBlock(key(i), true, false, true);
      if (got != null) {
        try {
          TestBlocks.assertBlock(key(i), SIZE, BlockType.DATA, got);
        } finally {
          got.release();
        }
        out.add(i);
      }
    }
    return out;
  }

  /** The files as a crash would leave them; the tier is shut down after, its files put back. */
  private byte[][] crash(BucketTier t) throws Exception {
    List<Path> files = new ArrayList<>(dataFiles());
    files.add(checkpoint());
    files.add(journal());
    byte[][] copies = new byte[files.size()][];
    for (int f = 0; f < copies.length; f++) {
      copies[f] = Files.readAllBytes(files.get(f));
    }
    t.shutdown();
    restore(copies);
    return copies;
  }

  private void restore(byte[][] copies) throws Exception {
    List<Path> files = new ArrayList<>(dataFiles());
    files.add(checkpoint());
    files.add(journal());
    for (int f = 0; f < copies.length; f++) {
      Files.write(files.get(f), copies[f]);
    }
  }

  /** Offsets in the journal at which each batch ends (the header is 24 bytes). */
  private static List<Integer> batchEnds(byte[] journal) {
    List<Integer> ends = new ArrayList<>();
    ByteBuffer b = ByteBuffer.wrap(journal);
    int at = 24;
    while (at + 8 <= journal.length) {
      at += 8 + b.getInt(at);
      ends.add(at);
    }
    return ends;
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "files", "mmap"})
  void crash_afterJournalSyncs_keepsEverySyncedChangeAndServesNoWrongByte(String kind)
      throws Exception {
    this.kind = kind;
    BucketTier t = open();
    cache(t, 0, 200);
    assertTrue(t.checkpoint(), "the first run writes the checkpoint");
    long afterCheckpoint = t.persistWrites()[0];
    for (int i = 0; i < 200; i += 3) {
      t.evictBlock(key(i)); // slots the checkpoint names are freed, then reused below
    }
    cache(t, 1000, 1060);
    assertTrue(t.flush(10_000));
    assertTrue(t.checkpoint(), "a sync");
    long sync = t.persistWrites()[0] - afterCheckpoint;
    // 67 removals and 60 publications: about 21 + 33 bytes each, far from the 200-block index
    assertTrue(sync < 60 * 33 + 67 * 21 + 400, "a sync wrote " + sync + " bytes");
    assertEquals(1, t.persistWrites()[1], "no second full checkpoint");
    List<Integer> before = served(t, 0, 2000);
    cache(t, 2000, 2030); // never synced: lost by the crash
    assertTrue(t.flush(10_000));
    crash(t);
    BucketTier again = open();
    try {
      List<Integer> after = served(again, 0, 3000);
      assertEquals(before, after, "the blocks of the last sync, no more, no fewer (" + kind
          + ")");
      again.checkInvariants();
    } finally {
      again.shutdown();
    }
  }

  /**
   * After a checkpoint, random evictions, file evictions, re-cached keys and new blocks of two
   * sizes in a cache too small for them (so slabs drain and change class), then a sync and a
   * crash: the restart, journal first, serves exactly what the tier served at the sync.
   */
  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void journalFirst_afterEvictionsDrainsAndReuse_servesExactlyTheSyncedBlocks(String kind)
      throws Exception {
    this.kind = kind;
    for (int round = 0; round < 3; round++) {
      long seed = SEED + 31L * round;
      SplittableRandom rnd = new SplittableRandom(seed);
      BucketTier t = BucketTier.builder().ioEngine(engine()).capacity(4L * MB).slabSize(MB)
          .bucketSizes(5 * 1024, 9 * 1024).writers(1, 8).persistentPath(checkpoint().toString())
          .persistIntervalMs(Integer.MAX_VALUE).admission("all").build();
      assertTrue(t.waitForCacheInitialization(60_000), "restore did not finish");
      int[] sizes = new int[4000];
      for (int i = 0; i < 600; i++) {
        cacheSized(t, i, sizes, rnd);
      }
      assertTrue(t.flush(10_000));
      assertTrue(t.checkpoint(), "a checkpoint");
      for (int op = 0; op < 900; op++) {
        int what = rnd.nextInt(10);
        if (what < 3) {
          t.evictBlock(key(rnd.nextInt(600)));
        } else if (what == 3 && rnd.nextInt(20) == 0) {
          t.evictBlocksByHfileName("journal-" + rnd.nextInt(4));
        } else if (what < 6) {
          cacheSized(t, rnd.nextInt(600), sizes, rnd); // a key cached again, maybe elsewhere
        } else {
          cacheSized(t, 600 + op, sizes, rnd);
        }
      }
      assertTrue(t.flush(10_000));
      assertTrue(t.checkpoint(), "a sync");
      assertEquals(1, t.persistWrites()[1], "no second full checkpoint (seed " + seed + ")");
      List<Integer> before = servedSized(t, sizes);
      assertTrue(before.size() > 100, "the cache holds blocks: " + before.size());
      crash(t);
      BucketTier again = BucketTier.builder().ioEngine(engine()).capacity(4L * MB)
          .slabSize(MB).bucketSizes(5 * 1024, 9 * 1024).writers(1, 8)
          .persistentPath(checkpoint().toString()).persistIntervalMs(Integer.MAX_VALUE)
          .admission("all").build();
      try {
        assertTrue(again.waitForCacheInitialization(60_000), "restore did not finish");
        assertEquals(before, servedSized(again, sizes), "the blocks of the last sync ("
            + kind + ", seed " + seed + ")");
        again.checkInvariants();
      } finally {
        again.shutdown();
      }
      for (Path f : List.of(checkpoint(), journal())) {
        Files.deleteIfExists(f);
      }
    }
  }

  /** Caches key {@code i} with a size of either class (kept in {@code sizes} to check it). */
  private static void cacheSized(BucketTier t, int i, int[] sizes, SplittableRandom rnd) {
    if (sizes[i] == 0) {
      sizes[i] = rnd.nextBoolean() ? SIZE : 7_000;
    }
    HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), sizes[i],
        BlockType.DATA);
    t.cacheBlock(key(i), b, false, true);
    b.release();
  }

  /** Keys with a size in {@code sizes} the tier serves, each checked byte for byte. */
  private static List<Integer> servedSized(BucketTier t, int[] sizes) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] == 0) {
        continue;
      }
      Cacheable got = t.getBlock(key(i), true, false, true);
      if (got != null) {
        try {
          TestBlocks.assertBlock(key(i), sizes[i], BlockType.DATA, got);
        } finally {
          got.release();
        }
        out.add(i);
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void tornOrDamagedJournal_stopsThereAndKeepsWhatPrecedes(String kind) throws Exception {
    this.kind = kind;
    SplittableRandom rnd = new SplittableRandom(SEED ^ kind.hashCode());
    BucketTier t = open();
    cache(t, 0, 100);
    assertTrue(t.checkpoint());
    List<List<Integer>> afterSync = new ArrayList<>();
    afterSync.add(served(t, 0, 2000)); // the checkpoint alone
    for (int s = 0; s < 3; s++) {
      cache(t, 1000 + 100 * s, 1030 + 100 * s);
      t.evictBlock(key(s));
      assertTrue(t.flush(10_000));
      assertTrue(t.checkpoint());
      afterSync.add(served(t, 0, 2000));
    }
    List<Integer> kept = afterSync.get(3);
    byte[][] files = crash(t);
    byte[] journal = files[files.length - 1];
    List<Integer> ends = batchEnds(journal);
    assertEquals(3, ends.size(), "one batch per sync");
    for (int round = 0; round < 6; round++) {
      int batch = rnd.nextInt(3);
      int start = batch == 0 ? 24 : ends.get(batch - 1);
      byte[] damaged;
      String what;
      if (round % 2 == 0) {
        what = "torn in batch " + batch;
        damaged = java.util.Arrays.copyOf(journal, start + 1 + rnd.nextInt(ends.get(batch)
            - start - 1));
      } else {
        what = "a flipped bit in batch " + batch;
        damaged = journal.clone();
        int at = start + rnd.nextInt(ends.get(batch) - start);
        damaged[at] ^= (byte) (1 << rnd.nextInt(8));
      }
      files[files.length - 1] = damaged;
      restore(files);
      BucketTier again = open();
      try {
        // What the batches before the damaged one published, less slots reused later (those
        // fail their CRC32C), and nothing else.
        List<Integer> prefix = afterSync.get(batch);
        List<Integer> got = served(again, 0, 2000);
        String where = what + ", " + kind + ", seed " + SEED;
        assertTrue(prefix.containsAll(got), "served blocks the valid prefix does not hold ("
            + where + "): " + got);
        for (int i : prefix) {
          if (kept.contains(i)) {
            assertTrue(got.contains(i), "block " + i + " of the valid prefix lost (" + where
                + ")");
          }
        }
        again.checkInvariants();
      } finally {
        again.shutdown();
      }
    }
  }
}
