/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.config.SettingException;
import io.tiercache.core.contract.TestBlocks;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Warm restarts, corruption and unusable checkpoints for each persistent engine. */
class BucketTierPersistenceTest {
  private static final int MB = 1 << 20;
  private static final int SIZE = 40_000;

  @TempDir
  Path dir;

  private String engine(String kind) {
    switch (kind) {
      case "file":
        return "file:" + dir.resolve("c.cache");
      case "files":
        return "files:" + dir.resolve("c1.cache") + "," + dir.resolve("c2.cache");
      default:
        return "mmap:" + dir.resolve("c.mmap");
    }
  }

  private BucketTier open(String kind, int... bucketSizes) {
    BucketTierBuilder b = BucketTier.builder().ioEngine(engine(kind)).capacity(8L * MB)
        .slabSize(MB).persistentPath(dir.resolve("index.ckpt").toString())
        .persistIntervalMs(3_600_000);
    if (bucketSizes.length > 0) {
      b.bucketSizes(bucketSizes);
    }
    return restored(b.build());
  }

  /** Waits for the background restore, so the test reads what a finished restore holds. */
  private static BucketTier restored(BucketTier t) {
    assertTrue(t.waitForCacheInitialization(60_000), "restore did not finish");
    return t;
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("hf-" + (i % 3), i * 100_000L, BlockType.DATA);
  }

  private static void fill(BucketTier t, int from, int to) {
    for (int i = from; i < to; i++) {
      HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), SIZE,
          BlockType.DATA);
      t.cacheBlock(key(i), b, false, true);
      b.release();
    }
  }

  private static int served(BucketTier t, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      Cacheable got = t.getBlock(key(i), true, false, true);
      if (got != null) {
        TestBlocks.assertBlock(key(i), SIZE, BlockType.DATA, got);
        got.release();
        n++;
      }
    }
    return n;
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "files", "mmap"})
  void restart_afterShutdown_servesEveryBlockAtOnce(String kind) throws Exception {
    BucketTier t = open(kind);
    fill(t, 0, 100);
    t.shutdown();
    Path ckpt = dir.resolve("index.ckpt");
    assertTrue(Files.exists(ckpt));
    if (Files.getFileStore(ckpt).supportsFileAttributeView("posix")) {
      assertEquals(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
          Files.getPosixFilePermissions(ckpt));
    }
    BucketTier again = open(kind);
    assertEquals(100, again.getBlockCount(), "restored without reading any block");
    assertEquals(100, served(again, 0, 100));
    assertEquals(0, again.checksumFailures());
    again.checkInvariants();
    fill(again, 100, 120);
    assertEquals(120, served(again, 0, 120));
    again.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void restart_withCorruptBlocks_dropsThemAndServesTheRest(String kind) throws Exception {
    BucketTier t = open(kind);
    fill(t, 0, 60);
    t.shutdown();
    Path data = dir.resolve(kind.equals("mmap") ? "c.mmap" : "c.cache");
    try (RandomAccessFile raf = new RandomAccessFile(data.toFile(), "rw")) {
      // Corrupt one byte in the first slab only; blocks in other slabs stay intact.
      for (long pos = 1000; pos < MB; pos += 40_960) {
        raf.seek(pos);
        raf.write(~raf.read() & 0xff);
        raf.seek(pos);
      }
    }
    BucketTier again = open(kind);
    assertEquals(60, again.getBlockCount());
    int ok = served(again, 0, 60);
    assertTrue(again.checksumFailures() > 0, "corruption went unnoticed");
    assertEquals(60, ok + again.checksumFailures(), "every block is served intact or dropped");
    assertTrue(ok >= 30, "only " + ok + " intact blocks served");
    again.checkInvariants();
    again.shutdown();
  }

  @Test
  void crashAfterCheckpoint_withLaterChurn_neverServesWrongBytes() throws Exception {
    BucketTier t = open("file");
    fill(t, 0, 150);
    assertTrue(t.checkpoint());
    // After the checkpoint: evictions and new blocks reuse slots the checkpoint still names.
    for (int i = 0; i < 150; i += 2) {
      t.evictBlock(key(i));
    }
    fill(t, 1000, 1100);
    assertTrue(t.flush(10_000));
    // Crash: no shutdown, no new checkpoint. The files as the crash leaves them are copied, the
    // tier is shut down (which releases its locks: a second tier on live files is refused), the
    // copies are put back, and a new tier opens them as a restarted process would.
    Path cache = dir.resolve("c.cache");
    Path ckpt = dir.resolve("index.ckpt");
    Path journal = dir.resolve("index.ckpt.journal"); // the changes since the checkpoint
    byte[] cacheAtCrash = Files.readAllBytes(cache);
    byte[] ckptAtCrash = Files.readAllBytes(ckpt);
    byte[] journalAtCrash = Files.readAllBytes(journal);
    t.shutdown();
    Files.write(cache, cacheAtCrash);
    Files.write(ckpt, ckptAtCrash);
    Files.write(journal, journalAtCrash);
    BucketTier again = open("file");
    int served = served(again, 0, 150);
    assertTrue(served > 0, "nothing survived the crash");
    assertEquals(0, served(again, 1000, 1100), "blocks written after the checkpoint are cold");
    again.checkInvariants();
    again.shutdown();
  }

  @Test
  void truncatedForeignOrMismatchedCheckpoint_meansColdStart() throws Exception {
    BucketTier t = open("file");
    fill(t, 0, 20);
    t.shutdown();
    Path ckpt = dir.resolve("index.ckpt");
    byte[] good = Files.readAllBytes(ckpt);
    Files.write(ckpt, java.util.Arrays.copyOf(good, good.length / 2));
    BucketTier truncated = open("file");
    assertEquals(0, truncated.getBlockCount());
    truncated.shutdown();
    Files.write(ckpt, "not a checkpoint at all".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    BucketTier foreign = open("file");
    assertEquals(0, foreign.getBlockCount());
    fill(foreign, 0, 20);
    foreign.shutdown();
    BucketTier otherGeometry = open("file", 8192, 65536);
    assertEquals(0, otherGeometry.getBlockCount(), "bucket sizes changed: cold start");
    fill(otherGeometry, 0, 5);
    assertEquals(5, served(otherGeometry, 0, 5));
    otherGeometry.shutdown();
  }

  @Test
  void persistentPathWithOffheapEngine_isRejectedNamingTheKeys() {
    SettingException e = assertThrows(SettingException.class, () -> BucketTier.builder()
        .capacity(8L * MB).slabSize(MB).persistentPath(dir.resolve("x").toString()).build());
    assertTrue(e.getMessage().contains("hbase.bucketcache.persistent.path"), e.getMessage());
    assertTrue(e.getMessage().contains("offheap"), e.getMessage());
  }

  @Test
  void checkpoint_whenNothingChanged_isSkipped() throws Exception {
    BucketTier t = open("file");
    fill(t, 0, 5);
    assertTrue(t.checkpoint());
    assertTrue(!t.checkpoint(), "no change, no new checkpoint");
    Cacheable got = t.getBlock(key(1), true, false, true);
    assertNotNull(got);
    got.release();
    t.shutdown();
  }
}
