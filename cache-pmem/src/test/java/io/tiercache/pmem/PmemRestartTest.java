/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.BucketTier;
import io.tiercache.bucket.BucketTierBuilder;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.contract.TestBlocks;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Warm restarts, damaged pools and geometry changes, on each back end. */
class PmemRestartTest {
  private static final int MB = 1 << 20;
  private static final int SIZE = 20_000;
  private static final int[] SIZES = {5 * 1024, 33 * 1024, 65 * 1024};

  private final PoolDir pools = new PoolDir();
  private final Path pool = pools.resolve("l2.pool");

  @AfterEach
  void removePools() {
    pools.close();
  }

  private BucketTier open(String backend, int... bucketSizes) {
    BucketTierBuilder b = BucketTier.builder().ioEngine("pmem:" + pool).pmemBackend(backend)
        .capacity(8L * MB).slabSize(MB).writers(1, 8);
    b.bucketSizes(bucketSizes.length > 0 ? bucketSizes : SIZES);
    BucketTier t = b.build();
    assertTrue(t.waitForCacheInitialization(60_000), "restore did not finish");
    return t;
  }

  static BlockCacheKey key(int i) {
    return TestBlocks.key("hf-" + (i % 3), i * 100_000L, BlockType.DATA);
  }

  static void fill(BucketTier t, int from, int to, int size) {
    for (int i = from; i < to; i++) {
      HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), size,
          BlockType.DATA);
      t.cacheBlock(key(i), b, false, true);
      b.release();
    }
  }

  /** Blocks of [from, to) served, each checked byte for byte against what was cached. */
  static int served(BucketTier t, int from, int to, int size) {
    int n = 0;
    for (int i = from; i < to; i++) {
      Cacheable got = t.getBlock(key(i), true, false, true);
      if (got != null) {
        try {
          TestBlocks.assertBlock(key(i), size, BlockType.DATA, got);
        } finally {
          got.release();
        }
        n++;
      }
    }
    return n;
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void restart_afterShutdown_servesEveryBlockWithoutACheckpointFile(String backend) {
    NativeLibraries.assumeBackend(backend);
    BucketTier t = open(backend);
    fill(t, 0, 100, SIZE);
    t.evictBlock(key(7));
    t.shutdown();
    BucketTier again = open(backend);
    assertEquals(99, again.getBlockCount(), "restored from the pool's own records");
    assertEquals(99, served(again, 0, 100, SIZE));
    assertEquals(0, again.checksumFailures());
    again.checkInvariants();
    fill(again, 100, 150, SIZE);
    assertEquals(149, served(again, 0, 150, SIZE));
    again.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void restart_withoutShutdown_servesWhatWasPublished(String backend) throws Exception {
    NativeLibraries.assumeBackend(backend);
    BucketTier t = open(backend);
    fill(t, 0, 80, SIZE);
    assertTrue(t.flush(10_000));
    // No shutdown: the records were made durable as each block was published. The pool as it
    // is now is copied, the tier is shut down (releasing its lock: a second tier on a live pool
    // is refused), and the copy is put back for a new tier, as a restarted process finds it.
    byte[] atCrash = Files.readAllBytes(pool);
    t.shutdown();
    Files.write(pool, atCrash);
    BucketTier again = open(backend);
    assertEquals(80, served(again, 0, 80, SIZE));
    again.checkInvariants();
    again.shutdown();
  }

  /**
   * The pool keeps each file's region in its records, so a restarted L2 reports the regions'
   * cached bytes ({@code getRegionCachedInfo}: the region cached ratio, the cache-aware balancer)
   * at once, as a checkpoint does. A file whose name and region together pass a record's 96
   * bytes is still restored, without its region.
   */
  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void restart_keepsEachFilesRegion(String backend) {
    NativeLibraries.assumeBackend(backend);
    String a = "0123456789abcdef0123456789abcdef";
    String b = "fedcba9876543210fedcba9876543210";
    String c = "00112233445566778899aabbccddeeff";
    String longName = "l".repeat(80);
    BucketTier t = open(backend);
    cacheUnder(t, a, "0a1b2c3d4e5f60718293a4b5c6d7e8f9", 10);
    cacheUnder(t, b, "9f8e7d6c5b4a39281706f5e4d3c2b1a0", 5);
    cacheUnder(t, c, longName, 3);
    assertTrue(t.flush(10_000));
    java.util.Map<String, Long> before = t.getRegionCachedInfo().get();
    assertEquals(3, before.size(), "three regions before: " + before);
    t.shutdown();
    BucketTier again = open(backend);
    try {
      assertEquals(18, again.getBlockCount(), "every block restored");
      java.util.Map<String, Long> after = again.getRegionCachedInfo().get();
      assertEquals(before.get(a), after.get(a), "region a's bytes right after the restart");
      assertEquals(before.get(b), after.get(b), "region b's bytes right after the restart");
      assertEquals(null, after.get(c), "a name too long for name and region: no region kept");
      again.checkInvariants();
    } finally {
      again.shutdown();
    }
  }

  private static void cacheUnder(BucketTier t, String region, String file, int blocks) {
    org.apache.hadoop.fs.Path path =
        new org.apache.hadoop.fs.Path("/hbase/data/default/t/" + region + "/cf/" + file);
    for (int i = 0; i < blocks; i++) {
      BlockCacheKey k = new BlockCacheKey(path, i * 100_000L, true, BlockType.DATA);
      HFileBlock blk = TestBlocks.heap(file, k.getOffset(), SIZE, BlockType.DATA);
      t.cacheBlock(k, blk, false, true);
      blk.release();
    }
  }

  @Test
  void restart_onTheOtherBackend_readsTheSamePool() {
    NativeLibraries.assumeBackend("llpl");
    BucketTier t = open("dax");
    fill(t, 0, 40, SIZE);
    t.shutdown();
    BucketTier again = open("llpl");
    assertEquals(40, served(again, 0, 40, SIZE));
    again.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void restart_withOtherBucketSizes_reformatsAndStartsCold(String backend) {
    NativeLibraries.assumeBackend(backend);
    BucketTier t = open(backend);
    fill(t, 0, 30, SIZE);
    t.shutdown();
    BucketTier other = open(backend, 9 * 1024, 33 * 1024, 65 * 1024);
    assertEquals(0, other.getBlockCount(), "a pool of other geometry is never trusted");
    fill(other, 0, 30, SIZE);
    assertEquals(30, served(other, 0, 30, SIZE));
    other.shutdown();
    BucketTier back = open(backend, 9 * 1024, 33 * 1024, 65 * 1024);
    assertEquals(30, back.getBlockCount(), "the re-formatted pool is durable in turn");
    back.shutdown();
  }

  @Test
  void restart_withDamagedRecords_dropsThoseBlocksOnly() throws Exception {
    BucketTier t = open("dax");
    fill(t, 0, 50, SIZE);
    t.shutdown();
    PoolLayout layout = new PoolLayout(8L * MB, MB, SIZES);
    int damaged = 0;
    try (RandomAccessFile raf = new RandomAccessFile(pool.toFile(), "rw")) {
      for (int slab = 0; slab < layout.slabCount; slab++) {
        for (int slot = 0; slot < layout.recordsPerSlab && damaged < 5; slot++) {
          long rec = layout.record(slab, slot);
          raf.seek(rec);
          if (raf.readLong() != 0) {
            raf.seek(rec + PoolIndex.R_BLOCK_OFFSET + 3); // the block's HFile offset
            raf.write(~raf.read() & 0xff);
            raf.seek(rec + PoolIndex.R_BLOCK_OFFSET + 3);
            damaged++;
          }
        }
      }
    }
    assertEquals(5, damaged);
    BucketTier again = open("dax");
    assertEquals(45, again.getBlockCount(), "a record failing its seal is dropped");
    assertEquals(45, served(again, 0, 50, SIZE));
    again.checkInvariants();
    again.shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void restart_withDamagedBytes_dropsThemOnFirstRead(String backend) throws Exception {
    NativeLibraries.assumeBackend(backend);
    BucketTier t = open(backend);
    fill(t, 0, 60, SIZE);
    t.shutdown();
    PoolLayout layout = new PoolLayout(8L * MB, MB, SIZES);
    try (RandomAccessFile raf = new RandomAccessFile(pool.toFile(), "rw")) {
      for (long pos = layout.dataBase + 1000; pos < layout.dataBase + MB; pos += 40_960) {
        raf.seek(pos);
        raf.write(~raf.read() & 0xff);
      }
    }
    BucketTier again = open(backend);
    assertEquals(60, again.getBlockCount(), "bytes are not read at restart");
    int ok = served(again, 0, 60, SIZE);
    assertTrue(again.checksumFailures() > 0, "damage went unnoticed");
    assertEquals(60, ok + again.checksumFailures(), "every block intact or dropped");
    again.shutdown();
    BucketTier third = open(backend);
    assertEquals(ok, third.getBlockCount(), "a dropped block's record was invalidated");
    third.shutdown();
  }

  @Test
  void publish_withAnHFileNameTooLongForARecord_cachesButIsNotDurable() {
    BucketTier t = open("dax");
    char[] name = new char[PoolIndex.NAME_MAX + 1];
    Arrays.fill(name, 'n');
    BlockCacheKey longKey = TestBlocks.key(new String(name), 0, BlockType.DATA);
    HFileBlock b = TestBlocks.heap(longKey.getHfileName(), 0, SIZE, BlockType.DATA);
    t.cacheBlock(longKey, b, false, true);
    b.release();
    fill(t, 0, 3, SIZE);
    Cacheable got = t.getBlock(longKey, true, false, true);
    TestBlocks.assertBlock(longKey, SIZE, BlockType.DATA, got);
    got.release();
    t.shutdown();
    BucketTier again = open("dax");
    assertEquals(3, again.getBlockCount());
    again.shutdown();
  }

  @Test
  void open_onAFileThatIsNotAPool_refusesToOverwriteIt() throws Exception {
    Files.write(pool, "precious data, not a cache".getBytes());
    SettingException e = assertThrows(SettingException.class, () -> open("dax"));
    assertTrue(e.getMessage().contains("not a TierCache pmem pool"), e.getMessage());
    assertEquals("precious data, not a cache", new String(Files.readAllBytes(pool)));
  }

  @Test
  void backend_unknown_failsNamingTheKey() {
    SettingException e = assertThrows(SettingException.class, () -> open("nvdimm"));
    assertTrue(e.getMessage().contains("tiercache.pmem.backend"), e.getMessage());
  }

  @Test
  void llplCannotStart_messageSaysWhatToInstallOrSet() {
    String m = Backend.LLPL.cannotStart(new UnsatisfiedLinkError("libpmemobj.so.1"));
    assertTrue(m.contains("apt-get install libpmemobj1 libpmempool1"), m);
    assertTrue(m.contains("tiercache.pmem.backend=dax"), m);
  }
}
