/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Occupancy;
import io.tiercache.core.contract.TestBlocks;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializer;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** L2 behaviour beyond the shared contract: rebalancing, pinning, faults, write queues. */
class BucketTierBehaviourTest {
  private static final int KB = 1024;
  private static final int MB = 1 << 20;
  /** The default slot of a 64 KB block (32 to a slab of the default size). */
  private static final int DATA_SLOT = 65_792;

  @TempDir
  Path dir;

  private static BlockCacheKey key(String file, long i) {
    return TestBlocks.key(file, i * 1_000_000L, BlockType.DATA);
  }

  private static void put(BucketTier t, String file, long i, int size, boolean wait) {
    HFileBlock b = TestBlocks.heap(file, i * 1_000_000L, size, BlockType.DATA);
    t.cacheBlock(key(file, i), b, false, wait);
    b.release();
  }

  /** The index of the size class whose slots are {@code slotSize} bytes. */
  private static int classOfSlot(Occupancy occ, int slotSize) {
    for (int c = 0; c < occ.classCount(); c++) {
      if (occ.classSize(c) == slotSize) {
        return c;
      }
    }
    throw new AssertionError("no class of " + slotSize + " bytes: " + occ);
  }

  @Test
  void blockSizeShift_movesSlabsToTheNewClass_andKeepsUtilisationHigh() {
    BucketTier t = BucketTier.builder().capacity(32L * MB).slabSize(MB).writers(1, 64).build();
    for (int i = 0; i < 6000; i++) {
      put(t, "small", i, 16 * KB - 100, true);
    }
    int small = t.occupancy().slabs(classOfSlot(t.occupancy(), 17 * KB));
    assertTrue(small >= 30, "16 KB blocks took " + small + " of 32 slabs");
    for (int i = 0; i < 4 * 32 * 16; i++) {
      put(t, "large", i, 64 * KB - 100, true);
    }
    t.flush(30_000);
    Occupancy occ = t.occupancy();
    int large = occ.slabs(classOfSlot(occ, DATA_SLOT));
    assertTrue(large >= 0.9 * 32, "after the shift 64 KB blocks hold " + large + " slabs: " + occ);
    assertTrue(occ.utilisation() >= 0.9, "utilisation " + occ);
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void heldBlocks_surviveEvictionAndShutdown_andEverySlabIsFreeOnceReleased() {
    BucketTier t = BucketTier.builder().capacity(8L * MB).slabSize(MB).build();
    List<Cacheable> held = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      put(t, "held", i, 60 * KB, true);
    }
    for (int i = 0; i < 40; i += 4) {
      Cacheable b = t.getBlock(key("held", i), true, false, true);
      assertNotNull(b);
      assertTrue(((HFileBlock) b).isSharedMem(), "off-heap reads are zero-copy");
      held.add(b);
    }
    assertEquals(40, t.evictBlocksByHfileName("held"));
    for (int i = 0; i < 200; i++) {
      put(t, "churn", i, 60 * KB, true);
    }
    t.checkInvariants();
    t.shutdown();
    // The engine stays open while readers hold its memory; their bytes are intact.
    for (int j = 0; j < held.size(); j++) {
      TestBlocks.assertBlock(key("held", j * 4L), 60 * KB, BlockType.DATA, held.get(j));
    }
    Occupancy beforeRelease = t.occupancy();
    assertEquals(held.size(), beforeRelease.usedSlots(classOfSlot(beforeRelease, DATA_SLOT)),
        "held slots stay reserved");
    for (Cacheable b : held) {
      b.release();
    }
    Occupancy after = t.occupancy();
    assertEquals(after.totalSlabs(), after.freeSlabs(), "all slabs free: " + after);
  }

  @Test
  void fullWriterQueue_neverDropsWhileSpaceExists() throws Exception {
    BucketTier t = BucketTier.builder().capacity(64L * MB).slabSize(MB).writers(1, 1)
        .writeMode("queued").build();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> fs = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      String file = "q" + w;
      fs.add(pool.submit(() -> {
        for (int i = 0; i < 100; i++) {
          put(t, file, i, 20 * KB, false);
        }
      }));
    }
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    assertTrue(t.flush(30_000));
    assertEquals(400, t.getBlockCount());
    assertEquals(0, t.getStats().getFailedInserts());
    t.checkInvariants();
    t.shutdown();
  }

  /**
   * A block whose serialization waits for {@link #open}: holds the single writer thread inside a
   * write so that the test controls when its queue is full.
   */
  private static final class GatedBlock implements Cacheable {
    final HFileBlock inner;
    final CountDownLatch writing = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);

    GatedBlock(HFileBlock inner) {
      this.inner = inner;
    }

    @Override
    public int getSerializedLength() {
      return inner.getSerializedLength();
    }

    @Override
    public void serialize(ByteBuffer destination, boolean includeNextBlockMetadata) {
      writing.countDown();
      try {
        open.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      inner.serialize(destination, includeNextBlockMetadata);
    }

    @Override
    public CacheableDeserializer<Cacheable> getDeserializer() {
      return inner.getDeserializer();
    }

    @Override
    public BlockType getBlockType() {
      return inner.getBlockType();
    }

    @Override
    public long heapSize() {
      return inner.heapSize();
    }
  }

  /** Queues a gated block and returns once the single writer is stuck writing it. */
  private static GatedBlock holdWriter(BucketTier t, String file) throws InterruptedException {
    GatedBlock g = new GatedBlock(TestBlocks.heap(file, 0, 60 * KB, BlockType.DATA));
    t.cacheBlock(key(file, 0), g, false, false);
    assertTrue(g.writing.await(30, TimeUnit.SECONDS), "the writer took the gated block");
    return g;
  }

  @Test
  void fullWriterQueue_cacheFull_dropsTheBlockAndCountsIt_neverEvictsOnTheCaller()
      throws Exception {
    // Admission "all": this is about the write queue; the filter would keep the gated block out.
    BucketTier t = BucketTier.builder().capacity(4L * MB).slabSize(MB).writers(1, 1)
        .writeMode("queued").admission("all").build();
    // 64 KB blocks take 65 KB slots; offheap keeps part of its 4 MB for the index: 3 slabs
    int slots = (int) (t.getMaxSize() / MB) * (MB / (DATA_SLOT));
    for (int i = 0; i < slots; i++) {
      put(t, "full", i, 60 * KB, true);
    }
    assertEquals(slots, t.getBlockCount());
    assertEquals(0, t.occupancy().freeSlabs(), "no free slab left: " + t.occupancy());
    GatedBlock gate = holdWriter(t, "gate");
    put(t, "queued", 1, 60 * KB, false); // fills the queue of length 1
    long blocksBefore = t.getBlockCount();

    put(t, "dropped", 2, 60 * KB, false); // queue full, no free slot: dropped

    assertEquals(1, t.fullQueueDrops());
    assertEquals(1, t.getStats().getFailedInserts());
    assertNull(t.getBlock(key("dropped", 2), true, false, true));
    assertEquals(blocksBefore, t.getBlockCount(), "the caller evicted nothing");
    Cacheable queued = t.getBlock(key("queued", 1), true, false, true);
    assertNotNull(queued, "a queued block is a hit");
    queued.release();

    gate.open.countDown();
    assertTrue(t.flush(30_000));
    for (String file : new String[] {"gate", "queued"}) {
      long i = file.equals("gate") ? 0 : 1;
      Cacheable b = t.getBlock(key(file, i), true, false, true);
      assertNotNull(b, file + " written by the writer, which evicts to make room");
      b.release();
    }
    assertEquals(1, t.fullQueueDrops());
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void fullWriterQueue_freeSpace_callerWritesIntoIt_noDrop() throws Exception {
    BucketTier t = BucketTier.builder().capacity(4L * MB).slabSize(MB).writers(1, 1)
        .writeMode("queued").build();
    GatedBlock gate = holdWriter(t, "gate");
    put(t, "queued", 1, 60 * KB, false);
    for (int i = 2; i < 12; i++) {
      put(t, "inline", i, 60 * KB, false); // queue full, free slots: written by this thread
      assertEquals(i - 1, t.getBlockCount(), "written before cacheBlock returned");
    }
    assertEquals(0, t.fullQueueDrops());
    assertEquals(0, t.getStats().getFailedInserts());
    gate.open.countDown();
    assertTrue(t.flush(30_000));
    assertEquals(12, t.getBlockCount());
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void waitWhenCache_cacheFull_callerEvictsAndWrites_noDrop() throws Exception {
    // Admission "all": this is about the write queue; the filter would keep the gated block out.
    BucketTier t = BucketTier.builder().capacity(4L * MB).slabSize(MB).writers(1, 1)
        .writeMode("queued").admission("all").build();
    int slots = 4 * (MB / (DATA_SLOT));
    for (int i = 0; i < slots; i++) {
      put(t, "full", i, 60 * KB, true);
    }
    GatedBlock gate = holdWriter(t, "gate");
    put(t, "queued", 1, 60 * KB, false);

    put(t, "waited", 2, 60 * KB, true);

    Cacheable b = t.getBlock(key("waited", 2), true, false, true);
    assertNotNull(b, "waitWhenCache writes even when the queue is full and the cache too");
    b.release();
    assertEquals(0, t.fullQueueDrops());
    gate.open.countDown();
    assertTrue(t.flush(30_000));
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void inlineWrite_cacheFull_callerEvictsAndPublishesBeforeReturning() throws Exception {
    // Admission "all": this is about who writes; the filter would keep the new blocks out.
    BucketTier t = BucketTier.builder().capacity(4L * MB).slabSize(MB).writers(1, 1)
        .admission("all").build();
    assertEquals("inline", t.writeMode(), "the default");
    int slots = (int) (t.getMaxSize() / MB) * (MB / (DATA_SLOT));
    for (int i = 0; i < slots; i++) {
      put(t, "full", i, 60 * KB, false);
      assertEquals(i + 1, t.getBlockCount(), "published before cacheBlock returned");
    }
    long evictedBefore = t.getStats().getEvictedCount();
    for (int i = 0; i < 8; i++) {
      put(t, "new", i, 60 * KB, false);
      Cacheable b = t.getBlock(key("new", i), true, false, true);
      assertNotNull(b, "written by the caller, which evicted to make room");
      TestBlocks.assertBlock(key("new", i), 60 * KB, BlockType.DATA, b);
      b.release();
      assertEquals(slots, t.getBlockCount());
    }
    assertEquals(8, t.getStats().getEvictedCount() - evictedBefore);
    assertEquals(0, t.fullQueueDrops());
    assertEquals(0, t.getStats().getFailedInserts());
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void inlineWrite_blockBeingWritten_isAHitMeanwhile() throws Exception {
    BucketTier t = BucketTier.builder().capacity(4L * MB).slabSize(MB).build();
    GatedBlock g = new GatedBlock(TestBlocks.heap("gate", 0, 60 * KB, BlockType.DATA));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> caching = pool.submit(() -> t.cacheBlock(key("gate", 0), g, false, false));
      assertTrue(g.writing.await(30, TimeUnit.SECONDS), "the caller is writing the block");
      Cacheable pending = t.getBlock(key("gate", 0), true, false, true);
      assertNotNull(pending, "a block its caller is still writing is a hit");
      pending.release();
      assertEquals(0, t.getBlockCount(), "not published yet");
      g.open.countDown();
      caching.get(30, TimeUnit.SECONDS);
      assertEquals(1, t.getBlockCount(), "published when cacheBlock returned");
      Cacheable b = t.getBlock(key("gate", 0), true, false, true);
      TestBlocks.assertBlock(key("gate", 0), 60 * KB, BlockType.DATA, b);
      b.release();
    } finally {
      g.open.countDown();
      pool.shutdownNow();
    }
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void writeMode_changedAtRunTime_badValueKeepsTheCurrentOne() throws Exception {
    BucketTier t = BucketTier.builder().capacity(4L * MB).slabSize(MB).writers(1, 1).build();
    Configuration conf = new Configuration(false);
    conf.set("tiercache.l2.write.mode", "queued");
    t.onConfigurationChange(conf);
    assertEquals("queued", t.writeMode());
    GatedBlock gate = holdWriter(t, "gate");
    put(t, "queued", 1, 60 * KB, false);
    assertEquals(0, t.getBlockCount(), "queued behind the held writer, not written by the caller");
    conf.set("tiercache.l2.write.mode", "sideways");
    t.onConfigurationChange(conf);
    assertEquals("queued", t.writeMode(), "a bad value changes nothing");
    conf.set("tiercache.l2.write.mode", "inline");
    t.onConfigurationChange(conf);
    put(t, "inline", 2, 60 * KB, false);
    Cacheable b = t.getBlock(key("inline", 2), true, false, true);
    assertNotNull(b, "written by the caller although the writer is still held");
    b.release();
    gate.open.countDown();
    assertTrue(t.flush(30_000));
    assertEquals(3, t.getBlockCount());
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void ioErrorOnFileEngine_isAMiss_thenDisablesBeyondToleratedDuration() throws Exception {
    Path file = dir.resolve("faulty.cache");
    BucketTier t = BucketTier.builder().ioEngine("file:" + file).capacity(4L * MB)
        .slabSize(MB).errorsToleratedMs(0).build();
    put(t, "f", 1, 30 * KB, true);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(0);
    }
    assertNull(t.getBlock(key("f", 1), true, false, true), "a failed read is a miss");
    assertTrue(t.ioErrors() >= 1);
    assertTrue(t.isDisabled(), "errors tolerated for 0 ms disable the tier");
    put(t, "f", 2, 30 * KB, true);
    assertNull(t.getBlock(key("f", 2), true, false, true), "a disabled tier caches nothing");
    t.shutdown();
  }

  @Test
  void corruptBytesOnFileEngine_areDroppedNeverServed() throws Exception {
    Path file = dir.resolve("corrupt.cache");
    BucketTier t = BucketTier.builder().ioEngine("file:" + file).capacity(4L * MB)
        .slabSize(MB).build();
    for (int i = 0; i < 5; i++) {
      put(t, "c", i, 30 * KB, true);
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      for (long pos = 0; pos < raf.length(); pos += 4096) {
        raf.seek(pos + 100);
        raf.write(0x5A);
      }
    }
    for (int i = 0; i < 5; i++) {
      assertNull(t.getBlock(key("c", i), true, false, true), "corrupt block " + i + " served");
    }
    assertEquals(5, t.checksumFailures());
    assertEquals(0, t.getBlockCount(), "corrupt blocks are evicted");
    assertFalse(t.isDisabled());
    t.checkInvariants();
    t.shutdown();
  }
}
