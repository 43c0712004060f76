/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.scale;

import io.tiercache.bench.data.BlockLayout;
import io.tiercache.bench.data.Blocks;
import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.nio.ByteBuff;

/**
 * The scale run's blocks: block {@code i} is key {@code (file i % FILES, offset (i / FILES) *
 * 4096)} and its payload is a pure function of {@code i}, so any block served, before or after a
 * restart or a SIGKILL, is checked byte for byte against its key.
 *
 * <p>Sizes: HBase serializes a block as its 33-byte header, the payload and 13 bytes of metadata;
 * a {@value #PAYLOAD}-byte payload makes that exactly {@value #SLOT} bytes, the one bucket size
 * both caches are given, so 4 KB blocks fit their slots with no rounding.
 *
 * <p>Concurrency: stateless (the file names are computed once).
 */
final class ScaleBlocks {
  /** Bytes of a serialized block and of its bucket. */
  static final int SLOT = 4096;
  /** HBase's serialized form adds this much after the header and payload. */
  static final int METADATA = HFileBlock.BLOCK_METADATA_SPACE;
  /** Payload bytes, so that header + payload + metadata = {@link #SLOT}. */
  static final int PAYLOAD = SLOT - BlockLayout.HEADER - METADATA;
  static final int FILES = 1024;
  private static final String[] NAMES = new String[FILES];
  private static final HFileContext[] CONTEXTS = new HFileContext[FILES];

  static {
    for (int f = 0; f < FILES; f++) {
      NAMES[f] = Blocks.fileName(15, f);
      CONTEXTS[f] = Blocks.context(NAMES[f], PAYLOAD);
    }
  }

  private ScaleBlocks() {}

  static BlockCacheKey key(long i) {
    return new BlockCacheKey(NAMES[(int) (i % FILES)], offset(i), true, BlockType.DATA);
  }

  private static long offset(long i) {
    return (i / FILES) * SLOT;
  }

  /** Block {@code i}, a new heap block of one reference. */
  static HFileBlock block(long i) {
    ByteBuffer buf = ByteBuffer.allocate(BlockLayout.HEADER + PAYLOAD);
    buf.position(BlockLayout.HEADER);
    for (int w = 0; w < PAYLOAD / 8; w++) {
      buf.putLong(word(i, w));
    }
    for (int b = 0; b < PAYLOAD % 8; b++) {
      buf.put((byte) word(i, -1 - b));
    }
    buf.rewind();
    return Blocks.of(BlockType.DATA, buf, offset(i), -1, -1, CONTEXTS[(int) (i % FILES)]);
  }

  /** Whether {@code got}, served for block {@code i}, holds exactly block {@code i}'s bytes. */
  static boolean verify(long i, Cacheable got) {
    if (!(got instanceof HFileBlock)) {
      return false;
    }
    HFileBlock b = (HFileBlock) got;
    if (b.getOffset() != offset(i) || b.getUncompressedSizeWithoutHeader() != PAYLOAD) {
      return false;
    }
    ByteBuff buf = b.getBufferWithoutHeader();
    if (buf.remaining() < PAYLOAD) {
      return false;
    }
    int at = buf.position();
    for (int w = 0; w < PAYLOAD / 8; w++) {
      if (buf.getLong(at + w * 8) != word(i, w)) {
        return false;
      }
    }
    for (int b2 = 0; b2 < PAYLOAD % 8; b2++) {
      if (buf.get(at + (PAYLOAD / 8) * 8 + b2) != (byte) word(i, -1 - b2)) {
        return false;
      }
    }
    return true;
  }

  /** Word {@code w} of block {@code i}'s payload (SplitMix64 of both). */
  private static long word(long i, int w) {
    long z = i * 0x9E3779B97F4A7C15L + w * 0xBF58476D1CE4E5B9L + 0x632BE59BD9B4E019L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
