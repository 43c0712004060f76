/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.engine.DirectMemory;
import java.io.Closeable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * A pool file of persistent memory as Java sees it: the whole file mapped in chunks of
 * {@code chunkSize} bytes (a ByteBuffer addresses at most 2^31 - 1), with stores and the
 * {@link #flush} that makes them durable. The back ends differ in how they store and flush
 * ({@link DaxRegion}, {@link LlplRegion}); reads and zero-copy views always go through the Java
 * mapping.
 *
 * <pre>
 * Invariants
 *   Pool offset p is byte p of the file; chunk i holds [i * chunkSize, (i + 1) * chunkSize).
 *   Every access the pool layout makes stays inside one chunk: the chunk size is a multiple of
 *   the slab size (itself whole 4 KB pages), slabs start at a multiple of the slab size, records
 *   and header fields are naturally aligned and at most 128 bytes. Multi-byte fields are in
 *   native byte order, the order LLPL's Unsafe stores use, so both back ends read each other's
 *   pools.
 *   An aligned putLong is one 8-byte store: the failure-atomic unit of persistent memory.
 *
 * Concurrency
 *   Absolute gets and puts on the shared chunks, each range access on its own duplicate: no
 *   position is shared, all methods are thread safe. close() must not run concurrently with
 *   any other call, and no view may be used after it (the mapping is gone).
 * </pre>
 */
abstract class PmemRegion implements Closeable {
  /** Largest mapping; a power of two below 2 GB. */
  static final int MAX_CHUNK = 1 << 30;

  final Path path;
  final long size;
  private final long chunkSize;
  private volatile MappedByteBuffer[] chunks;

  PmemRegion(Path path, long size, int chunkSize) {
    this.path = path;
    this.size = size;
    this.chunkSize = chunkSize;
  }

  /** The most whole slabs that fit in {@link #MAX_CHUNK}, and at least one. */
  static int chunkSize(int slabSize) {
    return Math.max(1, MAX_CHUNK / slabSize) * slabSize;
  }

  /** Number of chunks covering {@code size} bytes. */
  final int chunkCount() {
    return (int) ((size - 1) / chunkSize) + 1;
  }

  final long chunkStart(int i) {
    return i * chunkSize;
  }

  final int chunkLength(int i) {
    return (int) Math.min(chunkSize, size - chunkStart(i));
  }

  /** Called once by the subclass constructor with its Java mappings of the file. */
  final void install(MappedByteBuffer[] mapped) {
    for (MappedByteBuffer m : mapped) {
      m.order(ByteOrder.nativeOrder());
    }
    this.chunks = mapped;
  }

  private MappedByteBuffer chunk(long offset) {
    MappedByteBuffer[] c = chunks;
    if (c == null) {
      throw new IllegalStateException(describe() + " is closed");
    }
    return c[(int) (offset / chunkSize)];
  }

  private int within(long offset) {
    return (int) (offset % chunkSize);
  }

  /** A duplicate positioned on {@code [offset, offset + length)}, which lies in one chunk. */
  final ByteBuffer range(long offset, int length) {
    if (offset < 0 || length < 0 || offset > size - length) {
      throw new IndexOutOfBoundsException(
          "range [" + offset + ", +" + length + ") outside the pool of " + size + " bytes");
    }
    if (length == 0) {
      return ByteBuffer.allocate(0);
    }
    int start = within(offset);
    ByteBuffer d = chunk(offset).duplicate();
    d.limit(start + length).position(start);
    return d;
  }

  final long getLong(long offset) {
    return chunk(offset).getLong(within(offset));
  }

  final int getInt(long offset) {
    return chunk(offset).getInt(within(offset));
  }

  /** Copies {@code dst.length} bytes at {@code offset} into {@code dst}. */
  final void get(long offset, byte[] dst) {
    range(offset, dst.length).get(dst);
  }

  /** Stores {@code src.remaining()} bytes at {@code offset}; not yet durable. */
  abstract void put(long offset, ByteBuffer src);

  /** Stores {@code length} bytes of {@code src} at {@code offset}; not yet durable. */
  abstract void put(long offset, byte[] src, int from, int length);

  /** One 8-byte store at an 8-aligned {@code offset}; not yet durable. */
  abstract void putLong(long offset, long value);

  /** One 4-byte store at a 4-aligned {@code offset}; not yet durable. */
  abstract void putInt(long offset, int value);

  /** Zeroes {@code [offset, offset + length)}, which may span chunks; not yet durable. */
  abstract void zero(long offset, long length);

  /**
   * Makes every store to {@code [offset, offset + length)} durable: write-back of the cache
   * lines (or pages) covering it, then a fence. Returns when they are durable.
   */
  abstract void flush(long offset, long length);

  /** Back end and flush mode, for logs. */
  abstract String describe();

  /** The store methods' Java-side helpers for subclasses that store through the mapping. */
  final void putThroughMapping(long offset, ByteBuffer src) {
    range(offset, src.remaining()).put(src);
  }

  final void putThroughMapping(long offset, byte[] src, int from, int length) {
    range(offset, length).put(src, from, length);
  }

  final void putLongThroughMapping(long offset, long value) {
    chunk(offset).putLong(within(offset), value);
  }

  final void putIntThroughMapping(long offset, int value) {
    chunk(offset).putInt(within(offset), value);
  }

  /** The mapped chunk holding {@code offset} and the index of {@code offset} in it. */
  final MappedByteBuffer chunkAt(long offset) {
    return chunk(offset);
  }

  final int indexInChunk(long offset) {
    return within(offset);
  }

  /** Unmaps what a constructor mapped before it failed. */
  static void unmapAll(MappedByteBuffer[] mapped) {
    for (MappedByteBuffer m : mapped) {
      if (m != null) {
        DirectMemory.free(m);
      }
    }
  }

  /** Unmaps the Java mapping; subclasses release their own resources first. */
  @Override
  public void close() {
    MappedByteBuffer[] toFree;
    synchronized (this) {
      toFree = chunks;
      chunks = null;
    }
    if (toFree != null) {
      for (MappedByteBuffer m : toFree) {
        DirectMemory.free(m);
      }
    }
  }
}
