/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.bucket.meta.BlockRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The records of the L2's index log (issue 15): what the checkpoint ({@code TCCKPT04}, a full
 * snapshot) and the journal ({@code TCJRNL01}, the changes since that snapshot) are made of.
 * Both files carry records in checksummed batches, so a reader can apply a batch as soon as its
 * CRC holds (the restore serves blocks while it reads) and stops at the first torn or damaged
 * one.
 *
 * <h2>Batch (big-endian)</h2>
 * <pre>
 *   +0        +4        +8
 *   +---------+---------+---------------- ... ---+
 *   | length  |  crc    |  records (length bytes) |
 *   +---------+---------+---------------- ... ---+
 *   length  int  bytes of records, 1..{@link #MAX_BATCH}; 0 ends a checkpoint's batches
 *   crc     int  CRC32C of the records
 * </pre>
 * A batch holds whole records only.
 *
 * <h2>Records</h2>
 * <pre>
 *   FILE     +0 type=1 (byte)  +1 fileId int  +5 name (UTF)  then region (UTF, "" = unknown)
 *   PUBLISH  +0 type=2 (byte)  +1 handle long  +9 fileId int  +13 BlockRecord (20 bytes;
 *            its own byte is the size class)                           = 33 bytes
 *   REMOVE   +0 type=3 (byte)  +1 handle long  +9 fileId int  +13 blockOffset long = 21 bytes
 * </pre>
 * File ids are those of the process that wrote the file; a FILE record comes before the first
 * record of its id in the file (a checkpoint names each file once, a journal once per file
 * after each compaction). PUBLISH is the block's slot record in {@link BlockRecord}'s shared
 * layout; REMOVE names the key as well as the slot, so a restore removes a block only if that
 * slot still holds that key.
 *
 * <p>Stateless; the methods work on the caller's buffer.
 */
final class LogRecords {
  static final byte FILE = 1;
  static final byte PUBLISH = 2;
  static final byte REMOVE = 3;

  /** Bytes of a batch's header (length, crc). */
  static final int BATCH_HEADER = 8;
  /** Largest batch a reader accepts. */
  static final int MAX_BATCH = 64 << 20;

  static final int P_HANDLE = 1;
  static final int P_FILE_ID = 9;
  static final int P_RECORD = 13;
  static final int PUBLISH_SIZE = P_RECORD + BlockRecord.SIZE;

  static final int R_HANDLE = 1;
  static final int R_FILE_ID = 9;
  static final int R_BLOCK_OFFSET = 13;
  static final int REMOVE_SIZE = 21;

  /** The longest FILE record: names are kept short by HBase, but bound them anyway. */
  static final int MAX_NAME = 4096;

  private LogRecords() {}

  /** Bytes a FILE record of these encoded names takes. */
  static int fileSize(byte[] name, byte[] region) {
    return 1 + 4 + 2 + name.length + 2 + region.length;
  }

  static byte[] utf(String s) {
    byte[] b = s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    return b.length > MAX_NAME ? new byte[0] : b;
  }

  /** Writes a FILE record at the buffer's position. */
  static void putFile(ByteBuffer buf, int fileId, byte[] name, byte[] region) {
    buf.put(FILE).putInt(fileId).putShort((short) name.length).put(name)
        .putShort((short) region.length).put(region);
  }

  /** Writes a PUBLISH record of {@code m} (handle, file id, size class and shared fields). */
  static void putPublish(ByteBuffer buf, BlockMeta m) {
    int at = buf.position();
    buf.put(PUBLISH).putLong(m.handle).putInt(m.fileId);
    BlockRecord.put(buf, at + P_RECORD, m);
    buf.put(at + P_RECORD + BlockRecord.OWN, (byte) m.sizeClass);
    buf.position(at + PUBLISH_SIZE);
  }

  /** Writes a REMOVE record. */
  static void putRemove(ByteBuffer buf, long handle, int fileId, long blockOffset) {
    buf.put(REMOVE).putLong(handle).putInt(fileId).putLong(blockOffset);
  }

  /** Reads a PUBLISH record at the buffer's position into {@code m} and moves past it. */
  static BlockMeta getPublish(ByteBuffer buf, BlockMeta m) {
    int at = buf.position();
    m.handle = buf.getLong(at + P_HANDLE);
    m.fileId = buf.getInt(at + P_FILE_ID);
    BlockRecord.get(buf, at + P_RECORD, m);
    m.sizeClass = buf.get(at + P_RECORD + BlockRecord.OWN) & 0xff;
    buf.position(at + PUBLISH_SIZE);
    return m;
  }

  /** Reads a length-prefixed UTF-8 string; null if it does not fit the buffer. */
  static String getUtf(ByteBuffer buf) {
    if (buf.remaining() < 2) {
      return null;
    }
    int n = buf.getShort() & 0xffff;
    if (n > buf.remaining()) {
      return null;
    }
    String s = new String(buf.array(), buf.arrayOffset() + buf.position(), n,
        StandardCharsets.UTF_8);
    buf.position(buf.position() + n);
    return s;
  }

  /** CRC32C of {@code n} bytes of {@code b} from {@code off}, with a reused checksum. */
  static int crc(CRC32C crc, byte[] b, int off, int n) {
    crc.reset();
    crc.update(b, off, n);
    return (int) crc.getValue();
  }
}
