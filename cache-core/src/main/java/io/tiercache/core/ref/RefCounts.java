/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.ref;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hbase.thirdparty.io.netty.util.IllegalReferenceCountException;

/**
 * Reference-count helpers for HBase blocks ({@code retain}/{@code release} on HBase's
 * {@code RefCnt}).
 *
 * <p>The life cycle a tier follows for a block it holds:
 * <ol>
 *   <li>On insert the tier takes its own reference ({@link #ownOnHeap} for on-heap tiers), so the
 *       caller's {@code release()} does not free what the cache keeps.</li>
 *   <li>On a hit the tier retains the block for the caller ({@link #tryRetain}); the caller
 *       releases it when done.</li>
 *   <li>On eviction the tier first removes the block from its index (no new reader can find it),
 *       hands it to the next tier if any, then releases its own reference. Memory is freed when
 *       the last reader releases.</li>
 * </ol>
 */
public final class RefCounts {
  private RefCounts() {}

  /**
   * Takes a reference for a reader, unless the block was already freed.
   *
   * <p>A reader that found a block in an index may race with the eviction that releases the
   * cache's reference. Netty's counter refuses to go from 0 back to 1, so the loser of the race
   * sees {@code false} and treats the lookup as a miss; it never holds freed memory.
   *
   * @return true if the caller now holds a reference it must release
   */
  public static boolean tryRetain(Cacheable block) {
    try {
      block.retain();
      return true;
    } catch (IllegalReferenceCountException e) {
      return false;
    }
  }

  /**
   * Returns a block the cache may keep on heap: a copy on heap when {@code block} lives in shared
   * (pooled or off-heap) memory, otherwise {@code block} itself with one more reference. Either
   * way the result holds exactly one reference that belongs to the cache.
   */
  public static Cacheable ownOnHeap(Cacheable block) {
    if (block instanceof HFileBlock && ((HFileBlock) block).isSharedMem()) {
      return copyOnHeap(block);
    }
    return block.retain();
  }

  /**
   * Copies a block onto the Java heap through its own serialized form, the same path HBase uses
   * to move blocks between caches. The copy has a fresh reference count of one.
   */
  public static Cacheable copyOnHeap(Cacheable block) {
    ByteBuffer bytes = ByteBuffer.allocate(block.getSerializedLength());
    block.serialize(bytes, true);
    bytes.rewind();
    try {
      return block.getDeserializer().deserialize(ByteBuff.wrap(bytes), ByteBuffAllocator.HEAP);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy block on heap: " + block, e);
    }
  }
}
