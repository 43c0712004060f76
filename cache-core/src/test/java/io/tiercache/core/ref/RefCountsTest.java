/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.ref;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.contract.TestBlocks;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;

class RefCountsTest {
  @Test
  void tryRetain_liveBlock_succeeds_freedBlock_fails() {
    ByteBuffAllocator pool = TestBlocks.pooledAllocator(4);
    HFileBlock b = TestBlocks.pooled(pool, "f", 0, 10_000, BlockType.DATA);
    assertTrue(RefCounts.tryRetain(b));
    assertEquals(2, b.refCnt());
    b.release();
    b.release();
    assertEquals(0, b.refCnt());
    assertFalse(RefCounts.tryRetain(b), "a freed block must not come back to life");
    assertEquals(pool.getUsedBufferCount(), pool.getFreeBufferCount());
  }

  @Test
  void ownOnHeap_sharedBlock_copiesBytes_heapBlock_isKept() {
    ByteBuffAllocator pool = TestBlocks.pooledAllocator(4);
    HFileBlock shared = TestBlocks.pooled(pool, "f", 7, 30_000, BlockType.LEAF_INDEX);
    Cacheable copy = RefCounts.ownOnHeap(shared);
    assertNotSame(shared, copy);
    shared.release();
    assertEquals(pool.getUsedBufferCount(), pool.getFreeBufferCount());
    assertFalse(((HFileBlock) copy).isSharedMem());
    TestBlocks.assertBlock(TestBlocks.key("f", 7, BlockType.LEAF_INDEX), 30_000,
        BlockType.LEAF_INDEX, copy);
    assertEquals(shared.getNextBlockOnDiskSize(), ((HFileBlock) copy).getNextBlockOnDiskSize());
    HFileBlock heap = TestBlocks.heap("f", 8, 100, BlockType.DATA);
    assertSame(heap, RefCounts.ownOnHeap(heap));
  }
}
