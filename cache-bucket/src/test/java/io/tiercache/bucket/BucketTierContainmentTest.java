/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.Engines;
import io.tiercache.core.contract.TestBlocks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, finding 1: nothing thrown inside the L2 leaves a {@code BlockCache} method, and no
 * writer thread dies of it. A store into a mapped page the file system cannot back surfaces in
 * Java as {@link InternalError}; the engine here throws one on demand instead of provoking a real
 * SIGBUS (which, in a CRC intrinsic, kills the JVM: the engines reserve their space at open so
 * that it cannot happen, see the engine tests).
 */
class BucketTierContainmentTest {
  private static final int KB = 1024;
  private static final int MB = 1 << 20;

  /** Wraps an off-heap engine; {@code fault}, when set, is thrown by the next writes or views. */
  private static final class FaultyEngine implements Engine {
    final Engine inner;
    final AtomicReference<Supplier<? extends Throwable>> onWrite = new AtomicReference<>();
    final AtomicReference<Supplier<? extends Throwable>> onView = new AtomicReference<>();

    FaultyEngine(BucketConfig c) {
      this.inner = Engines.open("offheap", c.capacity, c.slabSize);
    }

    private static void maybeThrow(AtomicReference<Supplier<? extends Throwable>> fault)
        throws IOException {
      Supplier<? extends Throwable> f = fault.get();
      if (f == null) {
        return;
      }
      Throwable t = f.get();
      if (t instanceof IOException) {
        throw (IOException) t;
      }
      if (t instanceof RuntimeException) {
        throw (RuntimeException) t;
      }
      throw (Error) t;
    }

    @Override
    public long capacity() {
      return inner.capacity();
    }

    @Override
    public int slabSize() {
      return inner.slabSize();
    }

    @Override
    public boolean isZeroCopy() {
      return true;
    }

    @Override
    public boolean isPersistent() {
      return false;
    }

    @Override
    public ByteBuffer view(long offset, int length) {
      try {
        maybeThrow(onView);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return inner.view(offset, length);
    }

    @Override
    public void read(long offset, ByteBuffer dst) throws IOException {
      inner.read(offset, dst);
    }

    @Override
    public void write(long offset, ByteBuffer src) throws IOException {
      maybeThrow(onWrite);
      inner.write(offset, src);
    }

    @Override
    public void sync() {}

    @Override
    public String describe() {
      return "faulty(" + inner.describe() + ")";
    }

    @Override
    public void close() throws IOException {
      inner.close();
    }
  }

  private final AtomicReference<FaultyEngine> engine = new AtomicReference<>();

  private BucketTier tier(int writerThreads) {
    BucketConfig config = new BucketConfig("offheap", 8L * MB, new int[] {33 * KB, 66 * KB}, MB,
        writerThreads, 64, null, 1000, 60_000, "dax");
    return new BucketTier(config, "L2", ByteBuffAllocator.HEAP, c -> {
      FaultyEngine e = new FaultyEngine(c);
      engine.set(e);
      return e;
    });
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("f", i * 100_000L, BlockType.DATA);
  }

  private static void put(BucketTier t, int i, boolean wait) {
    HFileBlock b = TestBlocks.heap("f", i * 100_000L, 30 * KB, BlockType.DATA);
    t.cacheBlock(key(i), b, false, wait);
    b.release();
  }

  private static InternalError sigbus() {
    return new InternalError("a fault occurred in an unsafe memory access operation");
  }

  @Test
  void errorOnWriterThread_dropsBlock_keepsWriterAlive_disablesTier() {
    BucketTier t = tier(1);
    engine.get().onWrite.set(BucketTierContainmentTest::sigbus);
    for (int i = 0; i < 200; i++) { // more than the queue holds: a dead writer would fill it
      put(t, i, false);
    }
    assertTrue(t.flush(30_000), "the writer queue drains: no writer died");
    assertTrue(t.isDisabled(), "an Error disables the tier");
    assertTrue(t.unexpectedFailures() >= 1);
    assertEquals(0, t.getBlockCount());
    assertNull(t.getBlock(key(0), true, false, true));
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void errorOnCallerThread_isNotThrownOutOfCacheBlock() {
    BucketTier t = tier(1);
    engine.get().onWrite.set(BucketTierContainmentTest::sigbus);
    put(t, 1, true); // waitWhenCache: the caller writes; it threw InternalError before
    assertTrue(t.isDisabled());
    assertEquals(0, t.getBlockCount());
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void runtimeExceptionInWrite_dropsOneBlock_tierKeepsCaching() {
    BucketTier t = tier(1);
    engine.get().onWrite.set(() -> new IllegalStateException("bug"));
    put(t, 1, true);
    assertFalse(t.isDisabled(), "a RuntimeException drops the block, not the tier");
    assertEquals(0, t.getBlockCount());
    engine.get().onWrite.set(null);
    put(t, 2, true);
    Cacheable b = t.getBlock(key(2), true, false, true);
    assertNotNull(b, "the tier still caches");
    TestBlocks.assertBlock(key(2), 30 * KB, BlockType.DATA, b);
    b.release();
    assertEquals(1, t.unexpectedFailures());
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void errorOnRead_isAMissNotAThrow_andTheSlotIsUnpinned() {
    BucketTier t = tier(1);
    put(t, 1, true);
    engine.get().onView.set(BucketTierContainmentTest::sigbus);
    assertNull(t.getBlock(key(1), true, false, true));
    assertTrue(t.isDisabled());
    assertTrue(t.evictBlock(key(1)));
    assertEquals(t.getMaxSize(), t.getFreeSize(), "the slot was unpinned, so eviction freed it");
    t.checkInvariants();
    t.shutdown();
  }

  @Test
  void ioErrorOnWrite_stillDropsAndCounts() {
    BucketTier t = tier(2);
    engine.get().onWrite.set(() -> new IOException("device gone"));
    put(t, 1, true);
    assertEquals(1, t.ioErrors());
    assertEquals(0, t.unexpectedFailures());
    assertEquals(0, t.getBlockCount());
    t.checkInvariants();
    t.shutdown();
  }
}
