/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.meta;

import java.nio.ByteBuffer;

/**
 * The bytes of a {@link BlockMeta} that the durable records of a block share, at one place in
 * each: {@code cache-pmem}'s durable block record ({@code PoolIndex}, at its byte 8) and the
 * journal's PUBLISH record ({@code persist.LogRecords}). Each record adds its own head (seal;
 * record type, handle and file id) and tail (file and region names) around it. Both are formats
 * on disk or in a pool, so this layout does not change without a new format version. The slot
 * record ({@code alloc.Slab}, 24 bytes) packs the same {@link BlockMeta} fields more tightly and
 * does not embed this layout.
 *
 * <h2>Memory layout (20 bytes, the buffer's byte order)</h2>
 * <pre>
 *   +0                 +8        +12       +16  +17  +18  +19  +20
 *   +------------------+---------+---------+----+----+----+----+
 *   |   blockOffset    | length  |checksum |own |flag|dser|type|
 *   +------------------+---------+---------+----+----+----+----+
 *
 *   offset size field
 *     0     8   blockOffset   where the block starts in its HFile
 *     8     4   length        serialized length
 *    12     4   checksum      CRC32C of the serialized bytes
 *    16     1   (own)         the holding record's byte (the size class in both); not read or
 *                             written here
 *    17     1   flags         BlockMeta.F_* bits
 *    18     1   deserializer  HBase deserializer id (a name-table index in a durable record)
 *    19     1   type          BlockType ordinal, 0xff for none
 * </pre>
 * The checkpoint file is a big-endian stream with its own field order ({@code TCCKPT03}, kept so
 * existing checkpoints restore); it is written from and read into a {@link BlockMeta} too.
 *
 * <p>Stateless and thread safe; callers synchronise access to the buffer.
 */
public final class BlockRecord {
  public static final int BLOCK_OFFSET = 0;
  public static final int LENGTH = 8;
  public static final int CHECKSUM = 12;
  /** The holding record's own byte (see the layout). */
  public static final int OWN = 16;
  public static final int FLAGS = 17;
  public static final int DESERIALIZER = 18;
  public static final int TYPE = 19;
  /** Bytes of the shared part. */
  public static final int SIZE = 20;

  private BlockRecord() {}

  /**
   * Stores {@code m}'s block offset, length, checksum, flags, deserializer and type at
   * {@code at} (the own byte is left alone).
   */
  public static void put(ByteBuffer buf, int at, BlockMeta m) {
    buf.putLong(at + BLOCK_OFFSET, m.blockOffset);
    buf.putInt(at + LENGTH, m.length);
    buf.putInt(at + CHECKSUM, m.checksum);
    buf.put(at + FLAGS, (byte) m.flags);
    buf.put(at + DESERIALIZER, (byte) m.deserializer);
    buf.put(at + TYPE, (byte) m.type);
  }

  /** Reads what {@link #put} stores into {@code m}; returns {@code m}. */
  public static BlockMeta get(ByteBuffer buf, int at, BlockMeta m) {
    m.blockOffset = buf.getLong(at + BLOCK_OFFSET);
    m.length = buf.getInt(at + LENGTH);
    m.checksum = buf.getInt(at + CHECKSUM);
    m.flags = buf.get(at + FLAGS) & 0xff;
    m.deserializer = buf.get(at + DESERIALIZER) & 0xff;
    m.type = buf.get(at + TYPE) & 0xff;
    return m;
  }
}
