/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.InPlaceWrites;
import io.tiercache.bucket.meta.BlockMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializer;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializerIdManager;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.nio.ByteBuff;

/**
 * Moves blocks between HBase objects and engine bytes: HBase's own serialized form (the block
 * buffer plus its metadata, as BucketCache stores it) guarded by a CRC32C.
 *
 * <p>Reads from memory engines wrap the slot's memory without copying; the wrapped buffer's
 * recycler is the slot's unpin, so the slot stays reserved until the block's last release. Reads
 * from file engines copy into a buffer from the configured {@link ByteBuffAllocator} and unpin at
 * once. Every read path unpins exactly once.
 *
 * <p>Writes to engines with {@link InPlaceWrites} (memory engines) serialize straight into the
 * slot: one copy of the block. Other engines serialize into a per-thread scratch buffer first,
 * then write it: two copies.
 *
 * <p>Checksums: a zero-copy engine with in-place writes whose blocks do not survive a restart
 * ({@code offheap}, or {@code mmap:} without a checkpoint) never verifies a block it wrote itself (written blocks are
 * published verified), so the CRC32C of such a write is not computed ({@code checksums} false,
 * the record's checksum is 0): it was a second pass over 64 KB on every miss. Copying reads
 * ({@code file:}) and anything restored after a restart always have a real checksum.
 *
 * <p>Thread safe: the write scratch buffer is per thread.
 */
final class BlockCodec {
  static final int F_IN_MEMORY = BlockMeta.F_IN_MEMORY;
  static final int F_DATA = BlockMeta.F_DATA;
  static final int F_VERIFIED = BlockMeta.F_VERIFIED;

  /** Where an HFile block header keeps {@code onDiskSizeWithoutHeader}: after the 8-byte magic. */
  private static final int ON_DISK_SIZE_AT = 8;

  private final Engine engine;
  private final InPlaceWrites inPlace; // null unless the engine writes in place
  private final ByteBuffAllocator buffers;
  /**
   * Whether writes compute the CRC32C: false only for non-persistent zero-copy engines that
   * write in place (any other engine may read a block back through the copying, verifying path).
   */
  private final boolean checksums;
  private final ThreadLocal<ByteBuffer> scratch =
      ThreadLocal.withInitial(() -> ByteBuffer.allocate(64 * 1024 + 1024));

  /**
   * @param persistent whether written blocks can be read back after a restart (they are then
   *     verified against the checksum written here)
   */
  BlockCodec(Engine engine, ByteBuffAllocator buffers, boolean persistent) {
    this.engine = engine;
    this.inPlace = engine instanceof InPlaceWrites ? (InPlaceWrites) engine : null;
    this.buffers = buffers;
    this.checksums = persistent || inPlace == null || !engine.isZeroCopy();
  }

  static int flags(boolean inMemory, boolean data, boolean verified) {
    return (inMemory ? F_IN_MEMORY : 0) | (data ? F_DATA : 0) | (verified ? F_VERIFIED : 0);
  }

  /**
   * The metadata of {@code block}, just written ({@link #write}) into slot {@code h} with
   * {@code checksum}, as {@code BlockStore.publish} takes it: verified (its bytes are as written),
   * in-memory priority for in-memory and meta blocks. {@code data}: not an index or bloom block.
   */
  static BlockMeta written(long h, Cacheable block, int length, int checksum, boolean inMemory,
      boolean data) {
    BlockType type = block.getBlockType();
    BlockMeta m = new BlockMeta();
    m.handle = h;
    m.length = length;
    m.checksum = checksum;
    m.flags = flags(inMemory || !data, data, true);
    m.deserializer = block.getDeserializer().getDeserializerIdentifier();
    m.type = type == null ? 0xff : type.ordinal();
    return m;
  }

  /**
   * Serializes {@code block} to the engine at {@code address}, a slot the caller owns and has not
   * published; returns its CRC32C, or 0 where checksums are not kept (see the class comment).
   */
  int write(Cacheable block, long address, int length) throws IOException {
    if (inPlace != null) {
      ByteBuffer slot = inPlace.writable(address, length);
      block.serialize(slot, true);
      if (!checksums) {
        return 0;
      }
      slot.rewind().limit(length);
      return crc(slot);
    }
    ByteBuffer buf = scratch.get();
    if (buf.capacity() < length) {
      buf = ByteBuffer.allocate(length);
      scratch.set(buf);
    }
    buf.clear().limit(length);
    block.serialize(buf, true);
    buf.rewind().limit(length);
    int checksum = checksums ? crc(buf) : 0;
    engine.write(address, buf);
    return checksum;
  }

  /**
   * Materialises the pinned slot {@code h} as a block. Returns null, after unpinning, if the
   * bytes fail their checksum or the slot record does not describe a readable range or a known
   * deserializer (a damaged restore: the engine or the deserializer throws an unchecked
   * exception); throws after unpinning on an I/O error or an {@link Error}.
   */
  Cacheable read(long h, SlabAllocator slabs, Runnable unpin) throws IOException {
    // Every field of the slot record is read while the pin is held: once unpinned, the slot may
    // be evicted, freed, reallocated and described for another block at any moment.
    long address = slabs.address(h);
    int length = slabs.length(h);
    int checksum = slabs.checksum(h);
    CacheableDeserializer<Cacheable> deserializer =
        CacheableDeserializerIdManager.getDeserializer(slabs.deserializer(h));
    if (engine.isZeroCopy()) {
      ByteBuffer view;
      try {
        view = engine.view(address, length);
        if ((slabs.flags(h) & F_VERIFIED) == 0) {
          if (crc(view) != checksum) {
            unpin.run();
            return null;
          }
          slabs.addFlags(h, F_VERIFIED);
        }
      } catch (RuntimeException e) {
        unpin.run();
        return null;
      } catch (Error e) { // InternalError from a faulting mapping: the tier decides
        unpin.run();
        throw e;
      }
      ByteBuff wrapped = ByteBuff.wrap(new ByteBuffer[] {view}, unpin::run);
      try {
        return deserializer.deserialize(wrapped, buffers);
      } catch (IOException | Error e) {
        wrapped.release();
        throw e;
      } catch (RuntimeException e) {
        wrapped.release();
        return null;
      }
    }
    ByteBuff copy;
    try {
      copy = buffers.allocate(length);
    } catch (RuntimeException e) {
      unpin.run();
      return null;
    }
    try {
      long at = address;
      for (ByteBuffer part : copy.nioByteBuffers()) {
        ByteBuffer dst = part.duplicate();
        int take = (int) Math.min(dst.remaining(), address + length - at);
        dst.limit(dst.position() + take);
        engine.read(at, dst);
        at += take;
      }
    } catch (IOException | Error e) {
      copy.release();
      throw e;
    } catch (RuntimeException e) {
      copy.release();
      return null;
    } finally {
      unpin.run();
    }
    CRC32C crc = new CRC32C();
    for (ByteBuffer part : copy.nioByteBuffers()) {
      ByteBuffer d = part.duplicate();
      d.limit(Math.min(d.limit(), d.position() + length));
      crc.update(d);
    }
    if ((int) crc.getValue() != checksum) { // h is unpinned here: use what was read pinned
      copy.release();
      return null;
    }
    copy.rewind().limit(length);
    try {
      return deserializer.deserialize(copy, buffers);
    } catch (IOException | Error e) {
      copy.release();
      throw e;
    } catch (RuntimeException e) {
      copy.release();
      return null;
    }
  }

  /**
   * The on-disk size with header of the block in the pinned slot {@code h} (what HBase's
   * prefetch skips by, {@code HFileBlock#getOnDiskSizeWithHeader}), read from the block's own
   * header in the engine: the header's {@code onDiskSizeWithoutHeader} plus the header size,
   * which the serialized form's trailing metadata says (HBase checksums or not). A slot not yet
   * verified since a restart is verified first; -1 if its checksum fails. The caller unpins.
   */
  int onDiskSizeWithHeader(long h, SlabAllocator slabs) throws IOException {
    long address = slabs.address(h);
    int length = slabs.length(h);
    int checksum = slabs.checksum(h);
    ByteBuffer bytes;
    boolean verified;
    if (engine.isZeroCopy()) {
      bytes = engine.view(address, length);
      verified = (slabs.flags(h) & F_VERIFIED) != 0;
    } else { // file engines verify every read, as on the read path
      bytes = ByteBuffer.allocate(length);
      engine.read(address, bytes);
      bytes.flip();
      verified = false;
    }
    if (!verified) {
      if (crc(bytes) != checksum) {
        return -1;
      }
      slabs.addFlags(h, F_VERIFIED);
    }
    ByteBuffer header = bytes.duplicate().order(ByteOrder.BIG_ENDIAN);
    int onDiskSizeWithoutHeader = header.getInt(ON_DISK_SIZE_AT);
    boolean hbaseChecksum = header.get(length - HFileBlock.BLOCK_METADATA_SPACE) != 0;
    return onDiskSizeWithoutHeader + (hbaseChecksum ? HConstants.HFILEBLOCK_HEADER_SIZE
        : HConstants.HFILEBLOCK_HEADER_SIZE_NO_CHECKSUM);
  }

  private static int crc(ByteBuffer view) {
    CRC32C crc = new CRC32C();
    crc.update(view.duplicate());
    return (int) crc.getValue();
  }
}
