/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.admit.Admission;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The L2's admission filter ({@code tiercache.l2.admission}): what a full L2 lets in, in each
 * mode, on every engine. One writer with a long queue and a flush after each phase keep the
 * writes in a fixed order, so every run makes the same decisions.
 */
class BucketTierAdmissionTest {
  private static final int KB = 1024;
  private static final int MB = 1 << 20;
  /** Every block here goes to the 65 KB class: 15 slots per 1 MB slab. */
  private static final int PAYLOAD = 60 * KB;

  @TempDir
  Path dir;

  private BucketTier tier(String engine, String admission) {
    String spec = engine.equals("offheap") ? "offheap" : engine + ":" + dir.resolve("c");
    return BucketTier.builder().ioEngine(spec).capacity(8L * MB).slabSize(MB).writers(1, 4096)
        .admission(admission).build();
  }

  private static BlockCacheKey key(String file, long i) {
    return TestBlocks.key(file, i * MB, BlockType.DATA);
  }

  /** A read as HBase makes it: a lookup, and on a miss an insert of the block read from disk. */
  private static boolean read(BucketTier t, String file, long i) {
    Cacheable got = t.getBlock(key(file, i), true, false, true);
    if (got != null) {
      got.release();
      return true;
    }
    insert(t, key(file, i), BlockType.DATA, false, false);
    return false;
  }

  private static void insert(BucketTier t, BlockCacheKey key, BlockType type, boolean inMemory,
      boolean wait) {
    HFileBlock b = TestBlocks.heap(key.getHfileName(), key.getOffset(), PAYLOAD, type);
    t.cacheBlock(key, b, inMemory, wait);
    b.release();
  }

  /** Blocks the L2 holds when every slab is in the 65 KB class. */
  private static int slots(BucketTier t) {
    return t.occupancy().totalSlabs() * 15;
  }

  private static boolean written(BucketTier t, BlockCacheKey key) {
    return t.isAlreadyCached(key).orElse(false);
  }

  /**
   * Hit ratio of one pass over the hot set after a one-pass scan of 4x the L2 filled it, with
   * {@code protectedPercent} of each class's CLOCK protected ({@code evict.Clock}).
   */
  private double hotHitRatioAfterScan(String engine, String admission, int protectedPercent) {
    BucketTier t = tier(engine, admission);
    t.slabs.setProtectedPercent(protectedPercent);
    try {
      int slots = slots(t);
      int hot = slots / 2;
      for (int round = 0; round < 4; round++) {
        for (int i = 0; i < hot; i++) {
          read(t, "hot", i);
        }
        assertTrue(t.flush(30_000));
      }
      for (int i = 0; i < 4 * slots; i++) {
        read(t, "scan", i);
        if (i % 16 == 15) {
          assertTrue(t.flush(30_000));
        }
      }
      assertTrue(t.flush(30_000));
      int hits = 0;
      for (int i = 0; i < hot; i++) {
        Cacheable got = t.getBlock(key("hot", i), true, true, false);
        if (got != null) {
          TestBlocks.assertBlock(key("hot", i), PAYLOAD, BlockType.DATA, got);
          got.release();
          hits++;
        }
      }
      t.checkInvariants();
      return (double) hits / hot;
    } finally {
      t.shutdown();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file", "mmap"})
  void oneScanOverAFullL2_leavesTheHotSetInPlace_withTinyLfu_orAProtectedSegment(String engine) {
    double all = hotHitRatioAfterScan(engine, "all", 0);
    double tinyLfu = hotHitRatioAfterScan(engine, "tinylfu", 0);
    assertTrue(all < 0.2, engine + ": with all and one plain CLOCK the scan flushed the hot set, "
        + "hit ratio " + all);
    // a fresh filter lets in half the first reads that lose (Admission.START) until it learns
    // that they do not come back: the scan went through half the hot set's slots, not all
    assertTrue(tinyLfu > 0.4, engine + ": with tinylfu half the hot set stayed, hit ratio "
        + tinyLfu);
    double allProtected = hotHitRatioAfterScan(engine, "all", 80);
    assertTrue(allProtected > 0.95, engine + ": with all, the protected segment kept the hot set "
        + "(read four times) while the scan went through probation, hit ratio " + allProtected);
    double both = hotHitRatioAfterScan(engine, "tinylfu", 80);
    assertTrue(both > 0.95, engine + ": hit ratio " + both);
  }

  /** Fills every slot with blocks of {@code file} read {@code reads} times each. */
  private static void fill(BucketTier t, String file, int reads) {
    int slots = slots(t);
    for (int r = 0; r < reads; r++) {
      for (int i = 0; i < slots; i++) {
        read(t, file, i);
      }
      assertTrue(t.flush(30_000));
    }
    assertEquals(slots, t.getBlockCount(), "full");
  }

  @Test
  void aCandidateSeenMoreOftenThanItsVictim_isAdmitted_andOneSeenLessIsNot() {
    BucketTier t = tier("offheap", "tinylfu");
    try {
      fill(t, "old", 1);
      long rejectedBefore = t.getStats().admissionRejected();
      long admittedBefore = t.getStats().admitted();
      BlockCacheKey frequent = key("new", 1);
      for (int i = 0; i < 3; i++) {
        assertEquals(null, t.getBlock(frequent, true, false, true));
      }
      insert(t, frequent, BlockType.DATA, false, false);
      BlockCacheKey once = key("new", 2);
      insert(t, once, BlockType.DATA, false, false);
      assertTrue(t.flush(30_000));
      assertTrue(written(t, frequent), "3 sightings beat the victim's 1");
      assertFalse(written(t, once), "1 sighting does not beat the victim's 1");
      assertEquals(rejectedBefore + 1, t.getStats().admissionRejected());
      assertEquals(admittedBefore + 1, t.getStats().admitted());
      assertEquals(t.occupancy().totalSlabs() * 15, t.getBlockCount());
      t.checkInvariants();
    } finally {
      t.shutdown();
    }
  }

  @Test
  void metaInMemoryAndWaitWhenCacheInserts_areAlwaysAdmitted_plainDataIsNot() {
    BucketTier t = tier("offheap", "tinylfu");
    try {
      fill(t, "hot", 5);
      BlockCacheKey index = TestBlocks.key("new", 0, BlockType.LEAF_INDEX);
      insert(t, index, BlockType.LEAF_INDEX, false, false);
      BlockCacheKey bloom = TestBlocks.key("new", MB, BlockType.BLOOM_CHUNK);
      insert(t, bloom, BlockType.BLOOM_CHUNK, false, false);
      BlockCacheKey inMemory = key("new", 2);
      insert(t, inMemory, BlockType.DATA, true, false);
      BlockCacheKey prefetched = key("new", 3);
      insert(t, prefetched, BlockType.DATA, false, true);
      BlockCacheKey plain = key("new", 4);
      insert(t, plain, BlockType.DATA, false, false);
      assertTrue(t.flush(30_000));
      assertTrue(written(t, index), "index block");
      assertTrue(written(t, bloom), "bloom block");
      assertTrue(written(t, inMemory), "in-memory block");
      assertTrue(written(t, prefetched), "waitWhenCache insert");
      assertFalse(written(t, plain), "a data block seen once against victims read 5 times");
      assertEquals(1, t.getStats().admissionRejected());
      t.checkInvariants();
    } finally {
      t.shutdown();
    }
  }

  @Test
  void allMode_writesEveryBlock_andFeedsNoSketch() {
    BucketTier t = tier("offheap", "all");
    try {
      fill(t, "hot", 5);
      BlockCacheKey plain = key("new", 4);
      insert(t, plain, BlockType.DATA, false, false);
      assertTrue(t.flush(30_000));
      assertTrue(written(t, plain));
      assertEquals(0, t.getStats().admissionRejected());
      assertEquals(0, t.admission().frequency("hot", 0), "no sketch fed in all mode");
      assertEquals(t.getStats().admitted(), slots(t) + 1L);
    } finally {
      t.shutdown();
    }
  }

  /**
   * Two readers scanning the same blocks one after the other: each block is read twice in quick
   * succession, then not again. Plain TinyLFU turns each away at its first read (it loses to the
   * blocks read three times), so the second read misses as well; the filter starts by letting in
   * half of such first reads, and the misses on those it turned away, while the blocks pushed out
   * for the ones it let in are never read again, make it more lenient, and the second reads then
   * hit.
   */
  /** Reads block {@code i} of the scanned file twice; whether the second read hit. */
  private static boolean readTwice(BucketTier t, int i) {
    read(t, "scan", i);
    assertTrue(t.flush(30_000));
    return read(t, "scan", i);
  }

  @Test
  void blocksReadTwiceInQuickSuccession_areLetIn_onceTheTurnedAwayComeBack() {
    BucketTier t = tier("offheap", "tinylfu");
    try {
      fill(t, "old", 3);
      Admission a = t.admission();
      int i = 0;
      int early = 0;
      for (; i < 100; i++) {
        early += readTwice(t, i) ? 1 : 0;
      }
      assertTrue(early >= 40 && early <= 60,
          "first reads start at a leniency of 1/2: second reads that hit in 100 pairs: " + early);
      for (; i < 20_000 && a.leniency() < 0.9; i++) {
        readTwice(t, i);
      }
      assertTrue(a.leniency() >= 0.9, "leniency " + a.leniency() + " after " + i + " pairs");
      int hits = 0;
      for (int n = 0; n < 500; n++, i++) {
        hits += readTwice(t, i) ? 1 : 0;
      }
      assertTrue(hits >= 400, "second reads that hit in the next 500 pairs: " + hits);
      t.checkInvariants();
    } finally {
      t.shutdown();
    }
  }

  @Test
  void theSketch_agesAfterTwentySightingsPerLongOfCounters() {
    BucketTier t = tier("offheap", "tinylfu");
    try {
      // 8 MB / the 64 KB hint = 128 blocks: 128 longs of counters, aged every 20 x 128.
      assertEquals(20L * 128, t.admission().sketch().sampleSize());
    } finally {
      t.shutdown();
    }
  }

  @Test
  void bytesWritten_countsEverySerializedByteWritten_andNoneOfARejectedBlock() {
    BucketTier t = tier("file", "tinylfu");
    try {
      fill(t, "hot", 2);
      HFileBlock sample = TestBlocks.heap("x", 0, PAYLOAD, BlockType.DATA);
      int length = sample.getSerializedLength();
      sample.release();
      assertEquals((long) slots(t) * length, t.getStats().bytesWritten());
      insert(t, key("new", 1), BlockType.DATA, false, false);
      assertTrue(t.flush(30_000));
      assertEquals((long) slots(t) * length, t.getStats().bytesWritten(), "rejected: no bytes");
    } finally {
      t.shutdown();
    }
  }

  @Test
  void onConfigurationChange_switchesTheMode_andABadValueChangesNothing() {
    BucketTier t = tier("offheap", "tinylfu");
    try {
      fill(t, "hot", 5);
      Configuration conf = new Configuration(false);
      conf.set("tiercache.l2.admission", "bogus");
      t.onConfigurationChange(conf);
      assertTrue(t.admission().filtering(), "a bad value is rejected");
      conf.set("tiercache.l2.admission", "all");
      t.onConfigurationChange(conf);
      assertFalse(t.admission().filtering());
      BlockCacheKey plain = key("new", 4);
      insert(t, plain, BlockType.DATA, false, false);
      assertTrue(t.flush(30_000));
      assertTrue(written(t, plain), "all mode admits it");
      conf.set("tiercache.l2.admission", "tinylfu");
      t.onConfigurationChange(conf);
      assertTrue(t.admission().filtering());
      t.checkInvariants();
    } finally {
      t.shutdown();
    }
  }

  @Test
  void aBadAdmissionValue_failsAtStartUp_namingTheKeyAndTheRange() {
    SettingException built = assertThrows(SettingException.class,
        () -> BucketTier.builder().capacity(8L * MB).admission("lfu").build());
    assertTrue(built.getMessage().contains("tiercache.l2.admission"), built.getMessage());
    assertTrue(built.getMessage().contains("tinylfu or all"), built.getMessage());
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.size", "8");
    conf.set("tiercache.l2.admission", "none");
    SettingException read = assertThrows(SettingException.class, () -> new BucketTier(conf));
    assertTrue(read.getMessage().contains("tiercache.l2.admission"), read.getMessage());
    assertTrue(read.getMessage().contains("'none'"), read.getMessage());
  }

  @Test
  void anEmptyClass_admitsWithoutAVictim() {
    BucketTier t = tier("offheap", "tinylfu");
    try {
      BlockCacheKey first = key("new", 1);
      insert(t, first, BlockType.DATA, false, false);
      assertTrue(t.flush(30_000));
      assertTrue(written(t, first));
      Cacheable got = t.getBlock(first, true, true, false);
      assertNotNull(got);
      got.release();
      assertEquals(1, t.getStats().admitted());
    } finally {
      t.shutdown();
    }
  }
}
