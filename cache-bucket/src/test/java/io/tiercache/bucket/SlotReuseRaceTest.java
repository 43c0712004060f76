/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.Engines;
import io.tiercache.core.contract.TestBlocks;
import io.tiercache.core.stats.TierStats;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slot is reused as soon as its last reader unpins it. These tests run, in one thread and so
 * deterministically, what another thread may do in the window right after a reader's unpin: evict
 * the block, free the slot, reallocate it and write and describe another block.
 */
class SlotReuseRaceTest {
  private static final int SLAB = 64 * 1024;
  private static final int PAYLOAD = 60 * 1024;

  @TempDir Path dir;
  private Engine engine;
  private SlabAllocator slabs;
  private BlockStore store;
  private BlockCodec codec;

  /** One slab of one 64 KB slot: a freed slot is necessarily the next one allocated. */
  private void open() {
    engine = Engines.open("file:" + dir.resolve("l2.data"), SLAB, SLAB);
    slabs = new SlabAllocator(new SizeClasses(new int[] {SLAB}, SLAB), SLAB, SLAB);
    store = new BlockStore(slabs, new BlockIndex(1 << 12,
        slabs.classes().slotsPerSlab(0), BlockStore.slots(slabs)), new TierStats("race"), null);
    codec = new BlockCodec(engine, ByteBuffAllocator.HEAP, true);
  }

  @AfterEach
  void close() throws IOException {
    if (engine != null) {
      engine.close();
    }
  }

  private static BlockCacheKey key(String file) {
    return TestBlocks.key(file, 0, BlockType.DATA);
  }

  /** What BucketTier.write does: allocate, write the bytes, publish. */
  private long writeAndPublish(String file) throws IOException {
    long h = store.allocate(0);
    assertNotEquals(Handles.NONE, h, "no slot for " + file);
    HFileBlock block = TestBlocks.heap(file, 0, PAYLOAD, BlockType.DATA);
    try {
      int length = block.getSerializedLength();
      int checksum = codec.write(block, slabs.address(h), length);
      assertTrue(store.publish(key(file),
          BlockCodec.written(h, block, length, checksum, false, true), () -> true));
    } finally {
      block.release();
    }
    return h;
  }

  /** The other thread, right after the reader's unpin: evict "a", reuse its slot for "b". */
  private void reuseSlotForB(long h) {
    assertTrue(store.evict(key("a"), () -> false));
    try {
      assertEquals(h, writeAndPublish("b"), "the only slot is reused");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void fileRead_checksumOfSlotReusedAfterUnpin_isNotAFailure() throws IOException {
    open();
    long h = writeAndPublish("a");
    assertEquals(h, store.pin(key("a")));
    Cacheable block = codec.read(h, slabs, () -> {
      slabs.unpin(h);
      reuseSlotForB(h);
    });
    // The bytes were read while pinned and are block a's: they must verify against a's checksum,
    // not against the one b's writer has since put in the slot record.
    TestBlocks.assertBlock(key("a"), PAYLOAD, BlockType.DATA, block);
    block.release();
    TestBlocks.assertBlock(key("b"), PAYLOAD, BlockType.DATA, read("b"));
    store.checkInvariants(SLAB);
  }

  @Test
  void dropAfterChecksumFailure_ofSlotReusedMeanwhile_keepsTheNewBlock() throws IOException {
    open();
    long h = writeAndPublish("a");
    assertEquals(h, store.pin(key("a")));
    slabs.unpin(h); // codec.read unpins before BucketTier drops the failed block
    reuseSlotForB(h);
    store.evict(key("a"), h); // what BucketTier.readWritten does after a checksum failure
    assertEquals(1, store.blocks(), "b, which now holds the slot, is still cached");
    TestBlocks.assertBlock(key("b"), PAYLOAD, BlockType.DATA, read("b"));
    store.checkInvariants(SLAB);
  }

  private Cacheable read(String file) throws IOException {
    long h = store.pin(key(file));
    assertNotEquals(Handles.NONE, h, file + " is not cached");
    return codec.read(h, slabs, () -> slabs.unpin(h));
  }
}
