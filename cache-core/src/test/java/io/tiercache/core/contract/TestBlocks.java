/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlockBuilder;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.util.ChecksumType;

/**
 * Real HBase {@link HFileBlock}s for tests: a header written by HBase itself and a payload whose
 * bytes are a pure function of (file, offset, size), so any block returned by a cache can be
 * checked byte for byte without keeping the original around.
 */
public final class TestBlocks {
  /** The header size of blocks written with HBase checksums, as HFile v3 writes them. */
  public static final int HEADER = HConstants.HFILEBLOCK_HEADER_SIZE;

  private static final HFileContext CONTEXT = new HFileContextBuilder().withHBaseCheckSum(true)
      .withChecksumType(ChecksumType.CRC32C).withBytesPerCheckSum(16 * 1024)
      .withCompression(Compression.Algorithm.NONE).withIncludesMvcc(true).withIncludesTags(false)
      .withBlockSize(64 * 1024).build();

  private TestBlocks() {}

  public static BlockCacheKey key(String file, long offset, BlockType type) {
    return new BlockCacheKey(file, offset, true, type);
  }

  /** A block on the Java heap (HBase's exclusive-memory block). */
  public static HFileBlock heap(String file, long offset, int payload, BlockType type) {
    byte[] bytes = new byte[HEADER + payload];
    System.arraycopy(payload(file, offset, payload), 0, bytes, HEADER, payload);
    return build(ByteBuff.wrap(java.nio.ByteBuffer.wrap(bytes)), offset, payload, type,
        ByteBuffAllocator.HEAP, false);
  }

  /**
   * A block whose memory comes from {@code allocator}'s pool (HBase's shared-memory block, as a
   * RegionServer reads it from HDFS); its buffers go back to the pool on the last release.
   */
  public static HFileBlock pooled(ByteBuffAllocator allocator, String file, long offset,
      int payload, BlockType type) {
    ByteBuff buf = allocator.allocate(HEADER + payload);
    buf.position(HEADER);
    buf.put(payload(file, offset, payload));
    buf.rewind();
    return build(buf, offset, payload, type, allocator, !buf.hasArray());
  }

  /** A pooled allocator of direct 64 KB+ buffers, as a RegionServer configures one. */
  public static ByteBuffAllocator pooledAllocator(int maxBuffers) {
    Configuration conf = new Configuration(false);
    conf.setBoolean(ByteBuffAllocator.ALLOCATOR_POOL_ENABLED_KEY, true);
    conf.setInt(ByteBuffAllocator.MAX_BUFFER_COUNT_KEY, maxBuffers);
    conf.setInt(ByteBuffAllocator.BUFFER_SIZE_KEY, 66 * 1024);
    conf.setInt(ByteBuffAllocator.MIN_ALLOCATE_SIZE_KEY, 0);
    return ByteBuffAllocator.create(conf, true);
  }

  private static HFileBlock build(ByteBuff buf, long offset, int payload, BlockType type,
      ByteBuffAllocator allocator, boolean shared) {
    return new HFileBlockBuilder().withBlockType(type).withOnDiskSizeWithoutHeader(payload)
        .withUncompressedSizeWithoutHeader(payload).withPrevBlockOffset(-1L).withByteBuff(buf)
        .withFillHeader(true).withOffset(offset).withNextBlockOnDiskSize(-1)
        .withOnDiskDataSizeWithHeader(HEADER + payload).withHFileContext(CONTEXT)
        .withByteBuffAllocator(allocator).withShared(shared).build();
  }

  /** The payload bytes of the block at (file, offset) of the given size. */
  public static byte[] payload(String file, long offset, int size) {
    byte[] out = new byte[size];
    new SplittableRandom(file.hashCode() * 0x9E3779B97F4A7C15L + offset * 31 + size)
        .nextBytes(out);
    return out;
  }

  /**
   * Asserts that {@code actual}, returned by a cache for {@code key}, is the block generated for
   * that key: same type, offset, sizes and payload, byte for byte.
   */
  public static void assertBlock(BlockCacheKey key, int payload, BlockType type,
      Cacheable actual) {
    assertNotNull(actual, "no block for " + key);
    assertTrue(actual instanceof HFileBlock, "not an HFileBlock: " + actual);
    HFileBlock b = (HFileBlock) actual;
    assertEquals(type, b.getBlockType(), "block type of " + key);
    assertEquals(key.getOffset(), b.getOffset(), "offset of " + key);
    assertEquals(payload, b.getUncompressedSizeWithoutHeader(), "size of " + key);
    ByteBuff body = b.getBufferWithoutHeader();
    byte[] bytes = new byte[body.remaining()];
    body.get(bytes);
    assertArrayEquals(payload(key.getHfileName(), key.getOffset(), payload), bytes,
        "payload of " + key);
  }
}
