/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.engine.FaultyEngine;
import io.tiercache.bucket.engine.FaultyEngine.Op;
import io.tiercache.core.contract.TestBlocks;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The L2 over a {@link FaultyEngine}: I/O errors, short writes and latency on reads and writes.
 * A failed read is a miss, a failed or short write drops its block and frees its slot, errors
 * that last past {@code hbase.bucketcache.ioengine.errors.tolerated.duration} disable the tier,
 * and through all of it no hit has a wrong byte, no slot is leaked and every pooled buffer goes
 * back. Seed: {@code -Dtiercache.test.seed=N}.
 */
class FaultInjectionTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261124L);
  private static final int MB = 1 << 20;
  private static final int PAYLOAD = 20_000;

  @TempDir
  Path dir;

  private final ByteBuffAllocator pool = TestBlocks.pooledAllocator(256);
  private final List<BucketTier> opened = new ArrayList<>();
  private final Map<BucketTier, String> ids = new HashMap<>();
  private static final AtomicInteger IDS = new AtomicInteger();

  /** A faulty engine over {@code inner} ("offheap" or "file"), reads copied and CRC-checked. */
  private BucketTier open(String inner, int toleratedMs) {
    String id = "fault-" + IDS.incrementAndGet();
    String engine = inner.equals("offheap") ? "offheap" : "file:" + dir.resolve(id + ".cache");
    BucketTier t = BucketTier.builder().ioEngine(FaultyEngine.spec(engine, id))
        .capacity(4L * MB).slabSize(MB).writers(2, 4).errorsToleratedMs(toleratedMs)
        .buffers(pool).build();
    opened.add(t);
    ids.put(t, id);
    FaultyEngine.opened(id).seed(SEED).copyReads(true);
    return t;
  }

  private FaultyEngine engineOf(BucketTier t) {
    return FaultyEngine.opened(ids.get(t));
  }

  @AfterEach
  void shutDownAndCheckLeaks() {
    for (BucketTier t : opened) {
      t.shutdown();
    }
    assertEquals(pool.getUsedBufferCount(), pool.getFreeBufferCount(),
        "pooled buffers not returned");
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("faulty-" + (i % 4), i * 100_000L, BlockType.DATA);
  }

  private static boolean cache(BucketTier t, int i, boolean wait) {
    HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), PAYLOAD,
        BlockType.DATA);
    try {
      t.cacheBlock(key(i), b, false, wait);
    } finally {
      b.release();
    }
    return t.isAlreadyCached(key(i)).orElse(false);
  }

  /** Reads key i: null (a miss) or, checked byte for byte, a hit. */
  private static boolean hit(BucketTier t, int i) {
    Cacheable got = t.getBlock(key(i), true, false, true);
    if (got == null) {
      return false;
    }
    try {
      TestBlocks.assertBlock(key(i), PAYLOAD, BlockType.DATA, got);
    } finally {
      got.release();
    }
    return true;
  }

  /**
   * Settles the writes, checks the invariants, then evicts keys 0..n-1: every slot must then be
   * free, so none was leaked by a failed write or read.
   */
  private static void assertNoLeakedSlot(BucketTier t, int n) {
    t.flush(30_000);
    t.checkInvariants();
    for (int i = 0; i < n; i++) {
      t.evictBlock(key(i));
    }
    assertEquals(0, t.getBlockCount());
    assertEquals(t.getMaxSize(), t.getFreeSize(), "slots still in use with nothing cached");
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file"})
  void readFaults_areMisses_andTheBlockStaysReadable(String inner) {
    BucketTier t = open(inner, 60_000);
    FaultyEngine e = engineOf(t);
    for (int i = 0; i < 60; i++) {
      assertTrue(cache(t, i, true), "block " + i + " written");
    }
    e.failRate(Op.READ, 0.4);
    int misses = 0;
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 60; i++) {
        misses += hit(t, i) ? 0 : 1;
      }
    }
    assertTrue(misses > 0, "no read fault was injected");
    assertEquals(e.injected(Op.READ), misses, "each injected read fault is one miss");
    assertEquals(misses, t.ioErrors());
    assertFalse(t.isDisabled());
    e.healthy();
    for (int i = 0; i < 60; i++) {
      assertTrue(hit(t, i), "block " + i + " is still cached after its failed reads");
    }
    assertNoLeakedSlot(t, 60);
  }

  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file"})
  void writeFaultsAndShortWrites_dropTheBlock_freeTheSlot_neverServeTornBytes(String inner) {
    BucketTier t = open(inner, 60_000);
    FaultyEngine e = engineOf(t).failRate(Op.WRITE, 0.3).shortWrites(true);
    int cached = 0;
    for (int i = 0; i < 150; i++) {
      cached += cache(t, i, true) ? 1 : 0;
    }
    assertTrue(e.injected(Op.WRITE) > 0, "no write fault was injected");
    assertEquals(150, cached + e.injected(Op.WRITE), "each failed write drops its block");
    int hits = 0;
    for (int i = 0; i < 150; i++) {
      hits += hit(t, i) ? 1 : 0;
    }
    assertEquals(t.getBlockCount(), hits, "every cached block is served, with its own bytes");
    assertEquals(0, t.checksumFailures(), "a torn write is never published");
    assertNoLeakedSlot(t, 150);
  }

  @Test
  void errorsThatLast_disableTheTier_onlyAfterTheToleratedDuration() {
    int toleratedMs = 300;
    BucketTier t = open("offheap", toleratedMs);
    FaultyEngine e = engineOf(t);
    for (int i = 0; i < 10; i++) {
      assertTrue(cache(t, i, true));
    }
    e.failRate(Op.WRITE, 1);
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(20);
    int i = 10;
    while (!t.isDisabled()) {
      assertTrue(System.nanoTime() - deadline < 0, "not disabled after 20 s of errors");
      assertFalse(cache(t, i++, true));
    }
    long disabledAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(disabledAfterMs >= toleratedMs,
        "disabled after " + disabledAfterMs + " ms of errors, tolerated " + toleratedMs);
    e.healthy();
    // Disabled for good: nothing is cached or served any more, and the caller goes on.
    assertFalse(cache(t, i, true));
    assertNull(t.getBlock(key(0), true, false, true));
    assertEquals(i - 10, e.injected(Op.WRITE), "each write until then failed once");
  }

  @Test
  void errorsBrokenBySuccesses_neverDisableTheTier() {
    int toleratedMs = 100;
    BucketTier t = open("offheap", toleratedMs);
    FaultyEngine e = engineOf(t);
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * toleratedMs);
    int i = 0;
    while (System.nanoTime() - end < 0 && i < 100_000) {
      e.failRate(Op.WRITE, 1);
      assertFalse(cache(t, i++, true));
      e.failRate(Op.WRITE, 0);
      assertTrue(cache(t, i++, true));
    }
    assertFalse(t.isDisabled(), "a success resets the error clock");
    assertNoLeakedSlot(t, i);
  }

  @Test
  void writerThreadError_disablesTheTier_withoutStallingTheWriter() {
    BucketTier t = open("offheap", 0);
    engineOf(t).failRate(Op.WRITE, 1);
    HFileBlock b = TestBlocks.heap(key(0).getHfileName(), key(0).getOffset(), PAYLOAD,
        BlockType.DATA);
    t.cacheBlock(key(0), b); // queued: the writer thread meets the error and disables the tier
    b.release();
    // The writer stops the writers, itself among them: it must not wait for its own end.
    assertTrue(t.flush(5_000), "the writer that disabled the tier did not finish its item");
    assertTrue(t.isDisabled());
  }

  @Test
  void toleratedZero_disablesAtTheFirstError() {
    BucketTier t = open("offheap", 0);
    engineOf(t).failRate(Op.READ, 1);
    assertTrue(cache(t, 0, true));
    assertFalse(hit(t, 0));
    assertTrue(t.isDisabled());
  }

  @Test
  void syncFault_atCheckpoint_keepsThePreviousCheckpoint() throws Exception {
    String id = "fault-sync-" + IDS.incrementAndGet();
    String spec = FaultyEngine.spec("file:" + dir.resolve(id + ".cache"), id);
    BucketTierBuilder b = BucketTier.builder().ioEngine(spec).capacity(4L * MB).slabSize(MB)
        .writers(1, 4).persistentPath(dir.resolve(id + ".ckpt").toString())
        .persistIntervalMs(Integer.MAX_VALUE).buffers(pool);
    BucketTier t = b.build();
    for (int i = 0; i < 20; i++) {
      assertTrue(cache(t, i, true));
    }
    assertTrue(t.checkpoint());
    for (int i = 20; i < 40; i++) {
      assertTrue(cache(t, i, true));
    }
    FaultyEngine.opened(id).failRate(Op.SYNC, 1);
    assertThrows(IOException.class, t::checkpoint, "a checkpoint whose sync failed");
    t.shutdown(); // its last checkpoint fails the same way, logged, not thrown
    BucketTier again = b.build();
    opened.add(again);
    assertTrue(again.waitForCacheInitialization(60_000), "the background restore finished");
    assertEquals(20, again.getBlockCount(), "the checkpoint before the failed ones");
    for (int i = 0; i < 40; i++) {
      assertEquals(i < 20, hit(again, i), "block " + i);
    }
  }

  /**
   * Four threads read, write (queued and waiting), evict and evict files over an engine with
   * read and write faults, short writes and latency; then faults stop and the leak check runs.
   */
  @ParameterizedTest
  @ValueSource(strings = {"offheap", "file"})
  void seededMixOfFaultsAndLatency_noWrongByte_noLeak(String inner) throws Exception {
    BucketTier t = open(inner, 60_000);
    FaultyEngine e = engineOf(t).failRate(Op.READ, 0.1).failRate(Op.WRITE, 0.1)
        .shortWrites(true).latency(Op.WRITE, 200_000);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> work = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        long seed = SEED * 31 + w;
        work.add(threads.submit(() -> {
          SplittableRandom rnd = new SplittableRandom(seed);
          int hits = 0;
          for (int op = 0; op < 1_500; op++) {
            int i = rnd.nextInt(400);
            int dice = rnd.nextInt(100);
            if (dice < 55) {
              try {
                hits += hit(t, i) ? 1 : 0;
              } catch (AssertionError err) {
                throw new AssertionError("wrong bytes for block " + i + " (seed " + seed + ")",
                    err);
              }
            } else if (dice < 90) {
              cache(t, i, dice < 60);
            } else if (dice < 98) {
              t.evictBlock(key(i));
            } else {
              t.evictBlocksByHfileName(key(i).getHfileName());
            }
          }
          return hits;
        }));
      }
      int hits = 0;
      for (Future<Integer> f : work) {
        hits += f.get(120, TimeUnit.SECONDS);
      }
      System.out.printf("fault mix (%s, seed %d): %d hits, %d read and %d write faults "
          + "injected, %d blocks left%n", inner, SEED, hits, e.injected(Op.READ),
          e.injected(Op.WRITE), t.getBlockCount());
      assertTrue(e.injected(Op.READ) > 0 && e.injected(Op.WRITE) > 0);
    } finally {
      threads.shutdownNow();
    }
    e.healthy();
    assertNoLeakedSlot(t, 400);
  }
}
