/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.meta;

import io.tiercache.bucket.alloc.Handles;

/**
 * What the L2 knows about one cached block, defined once: the slot record ({@code alloc.Slab}),
 * the durable index of a persistent engine ({@code engine.DurableIndex}, {@code cache-pmem}'s
 * pool records), the checkpoint ({@code persist.Checkpoint}) and the restore all read and write
 * their records through this type; the durable records (pool, journal) share one layout,
 * {@link BlockRecord}.
 *
 * <p>A mutable carrier, not an entity: a checkpoint or a restore reuses one instance for every
 * block it streams, so a block costs no heap object there (issue 14). Which fields a record
 * keeps depends on the record: a slot record names the file by registry id ({@link #fileId}),
 * a durable or checkpoint record also by name ({@link #file}, {@link #region}).
 *
 * <h2>Two address spaces</h2>
 * {@link #blockOffset} is where the block starts in its HFile (the HBase key's offset);
 * {@link #handle} names the slot that holds it, whose engine address is
 * {@code SlabAllocator.address(handle)}. The word "offset" alone is never used for the engine.
 *
 * <p>Not thread safe: one thread fills and reads an instance.
 */
public final class BlockMeta {
  /** Flag: in-memory priority (index/bloom blocks, IN_MEMORY families). */
  public static final int F_IN_MEMORY = 1;
  /** Flag: a data block. */
  public static final int F_DATA = 2;
  /** Flag: bytes checked against the checksum since they were written or loaded. */
  public static final int F_VERIFIED = 4;

  /** The slot holding the block ({@link Handles}); {@link Handles#NONE} where unknown. */
  public long handle = Handles.NONE;
  /** Size class of the slot. */
  public int sizeClass;
  /** The HFile's id in the tier's {@code FileRegistry}, where the record keeps ids. */
  public int fileId;
  /** The HFile's name, where the record keeps names (durable index, checkpoint). */
  public String file;
  /** The file's region (encoded name), or null where the record does not know it. */
  public String region;
  /** Where the block starts in its HFile. */
  public long blockOffset;
  /** Serialized length of the block. */
  public int length;
  /** CRC32C of the serialized bytes. */
  public int checksum;
  /** {@code F_*} bits. */
  public int flags;
  /** HBase deserializer id (of this JVM once a record has been read back). */
  public int deserializer;
  /** {@code BlockType} ordinal, 0xff for none. */
  public int type;
  /** CLOCK frequency 0..3. */
  public int freq;
  /**
   * When the block was cached: minutes since the tier started, modulo 2^16, as the slot record
   * keeps it ({@code alloc.Slab}; 0 for a restored block).
   */
  public int cachedAt;

  /** Whether {@link #F_DATA} is set. */
  public boolean isData() {
    return (flags & F_DATA) != 0;
  }

  /** The initial CLOCK frequency of a block: 3 for in-memory blocks, else 0. */
  public static int initialFreq(int flags) {
    return (flags & F_IN_MEMORY) != 0 ? 3 : 0;
  }

  @Override
  public String toString() {
    return (file != null ? file : "file#" + fileId) + "@" + blockOffset + " in "
        + Handles.toString(handle) + " [class " + sizeClass + ", " + length + " B, crc "
        + Integer.toHexString(checksum) + ", flags " + flags + ", deser " + deserializer
        + ", type " + type + ", freq " + freq + ", cachedAt " + cachedAt + "]";
  }
}
