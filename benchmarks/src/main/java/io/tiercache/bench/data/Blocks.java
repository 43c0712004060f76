/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.data;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlockBuilder;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.util.ChecksumType;

/**
 * Builds {@link HFileBlock}s with HBase's own {@link HFileBlockBuilder}, header filled in, as the
 * HFile writer and reader do, so every cache serializes and sizes them as in production.
 */
public final class Blocks {
  private Blocks() {}

  /**
   * The context of an HFile: no compression or encoding, and HBase checksums with no checksum
   * bytes, as blocks are once the reader has verified and stripped them.
   */
  public static HFileContext context(String fileName, int blockSize) {
    return new HFileContextBuilder().withHBaseCheckSum(true)
        .withChecksumType(ChecksumType.NULL)
        .withBytesPerCheckSum(0)
        .withCompression(Compression.Algorithm.NONE)
        .withIncludesMvcc(true)
        .withIncludesTags(false)
        .withBlockSize(blockSize)
        .withHFileName(fileName)
        .build();
  }

  /**
   * Wraps {@code buf} — {@link BlockLayout#HEADER} bytes of header space, then the payload — as
   * a block holding one reference, and writes the header into it.
   */
  public static HFileBlock of(BlockType type, ByteBuffer buf, long offset, long prevOffset,
      int nextOnDiskSize, HFileContext context) {
    int payload = buf.limit() - BlockLayout.HEADER;
    return new HFileBlockBuilder().withBlockType(type)
        .withOnDiskSizeWithoutHeader(payload)
        .withUncompressedSizeWithoutHeader(payload)
        .withPrevBlockOffset(prevOffset)
        .withByteBuff(ByteBuff.wrap(buf))
        .withFillHeader(true)
        .withOffset(offset)
        .withNextBlockOnDiskSize(nextOnDiskSize)
        .withOnDiskDataSizeWithHeader(BlockLayout.HEADER + payload)
        .withHFileContext(context)
        .withByteBuffAllocator(ByteBuffAllocator.HEAP)
        .build();
  }

  /** A data block of {@code payload} random bytes (seeded) for microbenchmarks. */
  public static HFileBlock random(String fileName, long offset, int payload, long seed) {
    ByteBuffer buf = ByteBuffer.allocate(BlockLayout.HEADER + payload);
    byte[] bytes = new byte[payload];
    new SplittableRandom(seed).nextBytes(bytes);
    buf.position(BlockLayout.HEADER);
    buf.put(bytes);
    buf.rewind();
    return of(BlockType.DATA, buf, offset, -1, -1, context(fileName, payload));
  }

  /** An HFile name as HBase makes them: 32 hex digits. */
  public static String fileName(long seed, int index) {
    return String.format("%016x%016x", seed ^ 0x5DEECE66DL, (index + 1) * 0x9E3779B97F4A7C15L);
  }
}
