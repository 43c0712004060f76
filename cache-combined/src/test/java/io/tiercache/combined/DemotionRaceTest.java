/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static io.tiercache.core.contract.TestBlocks.assertBlock;
import static io.tiercache.core.contract.TestBlocks.heap;
import static io.tiercache.core.contract.TestBlocks.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tiercache.bucket.BucketTier;
import io.tiercache.lru.LruTier;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockPriority;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializer;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Exclusive mode: an L1→L2 demotion and an eviction of the same block (issue 13, finding 2).
 *
 * <p>The race is forced without sleeps: the demoted block is a {@link Cacheable} that stops the
 * hand-off at the L2's first look at it ({@code getSerializedLength}, the first call
 * {@code BucketTier.cacheBlock} makes), after the block left the L1 and before the L2 holds it.
 * Before the fix the eviction, run in that window, found the block in neither tier and returned,
 * and the hand-off then cached it in the L2, where it outlived the eviction.
 */
class DemotionRaceTest {
  private static final int PAYLOAD = 16 * 1024;
  private static final long WAIT_SECONDS = 30;

  private TieredBlockCache cache;

  private TieredBlockCache build(long l1Bytes) {
    LruTier l1 = LruTier.builder().maxSize(l1Bytes).blockSizeHint(PAYLOAD).build();
    BucketTier l2 = BucketTier.builder().ioEngine("offheap").capacity(8 << 20)
        .slabSize(1 << 20).writers(1, 8).build();
    cache = new TieredBlockCache(l1, l2, TieringMode.EXCLUSIVE, 1);
    return cache;
  }

  @AfterEach
  void tearDown() {
    if (cache != null) {
      cache.l2().flush(30_000);
      cache.checkInvariants();
      cache.shutdown();
    }
  }

  /** A heap block that can stop the thread handing it to the L2 at the L2's first look. */
  private static final class PausingBlock implements Cacheable {
    private final HFileBlock block;
    final AtomicBoolean armed = new AtomicBoolean();
    final CountDownLatch inHandOff = new CountDownLatch(1);
    final CountDownLatch proceed = new CountDownLatch(1);

    PausingBlock(HFileBlock block) {
      this.block = block;
    }

    @Override
    public int getSerializedLength() {
      if (armed.compareAndSet(true, false)) {
        inHandOff.countDown();
        await(proceed, "the test to let the hand-off go on");
      }
      return block.getSerializedLength();
    }

    @Override
    public void serialize(ByteBuffer destination, boolean includeNextBlockMetadata) {
      block.serialize(destination, includeNextBlockMetadata);
    }

    @Override
    public CacheableDeserializer<Cacheable> getDeserializer() {
      return block.getDeserializer();
    }

    @Override
    public BlockType getBlockType() {
      return block.getBlockType();
    }

    @Override
    public long heapSize() {
      return block.heapSize();
    }

    @Override
    public Cacheable retain() {
      block.retain();
      return this;
    }

    @Override
    public boolean release() {
      return block.release();
    }

    @Override
    public int refCnt() {
      return block.refCnt();
    }
  }

  private static void await(CountDownLatch latch, String what) {
    try {
      if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("timed out waiting for " + what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Waits until {@code t} has ended or parks (at the hand-off barrier); bounded. */
  private static void awaitParkedOrDone(Thread t) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (true) {
      Thread.State s = t.getState();
      if (s == Thread.State.TERMINATED || s == Thread.State.WAITING
          || s == Thread.State.TIMED_WAITING) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        fail("evicting thread neither finished nor waited: " + s);
      }
      Thread.onSpinWait();
    }
  }

  private static void join(Thread t) throws InterruptedException {
    t.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    assertFalse(t.isAlive(), t.getName() + " did not finish");
  }

  /**
   * Demotes the block {@code victim} of file "gone": caches it in the L1, then shrinks the L1 so
   * that it hands the block off; the hand-off stops inside the L2, {@code whileHandingOff} runs in
   * another thread then, and the hand-off goes on once that thread has finished or waits.
   */
  private void demoteRacing(BlockCacheKey victim, Runnable whileHandingOff) throws Exception {
    PausingBlock block = new PausingBlock(heap("gone", victim.getOffset(), PAYLOAD,
        BlockType.DATA));
    cache.cacheBlock(victim, block);
    assertTrue(cache.l1().containsBlock(victim));
    block.armed.set(true);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread demoter = new Thread(() -> {
      try {
        cache.l1().setMaxSize(1); // every L1 block is a capacity victim, handed to the L2
      } catch (Throwable e) {
        failure.set(e);
      }
    }, "demoter");
    demoter.start();
    await(block.inHandOff, "the L1 to hand the block off");
    assertFalse(cache.l1().containsBlock(victim), "the victim left the L1");
    Thread evictor = new Thread(whileHandingOff, "evictor");
    evictor.start();
    awaitParkedOrDone(evictor);
    block.proceed.countDown();
    join(demoter);
    join(evictor);
    if (failure.get() != null) {
      throw new AssertionError("demoter failed", failure.get());
    }
    cache.l2().flush(30_000);
  }

  @Test
  void evictBlocksByHfileName_racingDemotion_leavesTheBlockInNeitherTier() throws Exception {
    build(64 * 1024);
    BlockCacheKey victim = key("gone", 0, BlockType.DATA);
    AtomicInteger evicted = new AtomicInteger(-1);
    demoteRacing(victim, () -> evicted.set(cache.evictBlocksByHfileName("gone")));
    assertFalse(cache.l2().isAlreadyCached(victim).orElse(true),
        "the demoted block outlived the eviction of its file in the L2");
    assertNull(cache.getBlock(victim, true, false, true));
    assertEquals(1, evicted.get(), "the eviction found the block (in the L2, once demoted)");
  }

  @Test
  void evictBlock_racingDemotion_leavesTheBlockInNeitherTier() throws Exception {
    build(64 * 1024);
    BlockCacheKey victim = key("gone", 0, BlockType.DATA);
    AtomicBoolean evicted = new AtomicBoolean();
    demoteRacing(victim, () -> evicted.set(cache.evictBlock(victim)));
    assertFalse(cache.l2().isAlreadyCached(victim).orElse(true),
        "the demoted block outlived its eviction in the L2");
    assertNull(cache.getBlock(victim, true, false, true));
    assertTrue(evicted.get());
  }

  @Test
  void inMemoryDataBlock_demotedAndPromoted_keepsTheInMemoryPriority() {
    build(8 << 20);
    BlockCacheKey k = key("mem", 0, BlockType.DATA);
    cache.cacheBlock(k, heap("mem", 0, PAYLOAD, BlockType.DATA), true);
    assertEquals(BlockPriority.MEMORY, priorityIn(cache.l1(), k));
    cache.l1().setMaxSize(1); // every block is a victim: demoted to the L2
    cache.l2().flush(30_000);
    assertFalse(cache.l1().containsBlock(k));
    assertEquals(BlockPriority.MEMORY, priorityIn(cache.l2(), k),
        "the L2 keeps the demoted block's in-memory priority");
    cache.l1().setMaxSize(8 << 20);
    Cacheable hit = cache.getBlock(k, true, false, true); // promoted (1 hit is enough here)
    assertBlock(k, PAYLOAD, BlockType.DATA, hit);
    hit.release();
    assertTrue(cache.l1().containsBlock(k));
    assertEquals(BlockPriority.MEMORY, priorityIn(cache.l1(), k),
        "the promoted block is in-memory again, not single-access");
  }

  private static BlockPriority priorityIn(Iterable<CachedBlock> tier, BlockCacheKey k) {
    for (CachedBlock b : tier) {
      if (b.getFilename().equals(k.getHfileName()) && b.getOffset() == k.getOffset()) {
        return b.getBlockPriority();
      }
    }
    throw new AssertionError(k + " is not in the tier");
  }
}
