/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.nio.ByteBuffer;

/**
 * An engine whose storage is Java-addressable memory ({@code offheap}, {@code mmap}): an array of
 * direct or mapped buffers ("chunks"), each of whole slabs. Zero-copy reads
 * ({@link #view}) and in-place writes ({@link #writable}).
 *
 * <pre>
 * Invariants
 *   chunks.length == ceil(capacity / chunkSize); chunk i holds engine bytes
 *   [i * chunkSize, (i + 1) * chunkSize); nobody moves a chunk's position or limit (all access
 *   goes through duplicates). After close() chunks is null and the memory is freed or unmapped
 *   (or left to the GC if invokeCleaner is unavailable).
 *
 * Concurrency
 *   view/writable/read/write are lock-free, each on its own duplicate. close() must not run concurrently
 *   with them and no view may be used after it (for memory engines that is a use-after-free):
 *   the L2 closes its engine only once writers stopped and every pin was released. Operations
 *   that start after close() throw IllegalStateException.
 * </pre>
 */
abstract class MemoryEngine implements Engine, InPlaceWrites {
  private final long capacity;
  private final int slabSize;
  private final long chunkSize;
  private volatile ByteBuffer[] chunks;

  /** {@code chunkSize} is a positive multiple of the slab size. */
  MemoryEngine(long capacity, int slabSize, int chunkSize) {
    Slabs.checkGeometry(capacity, slabSize);
    if (chunkSize < slabSize || chunkSize % slabSize != 0) {
      throw new IllegalArgumentException("chunk size " + chunkSize
          + " is not a positive multiple of the slab size (" + slabSize + ")");
    }
    this.capacity = capacity;
    this.slabSize = slabSize;
    this.chunkSize = chunkSize;
  }

  /** Number of chunks a subclass must supply to {@link #install}. */
  final int chunkCount() {
    return (int) ((capacity - 1) / chunkSize) + 1;
  }

  /** Bytes of chunk {@code i} (the last one may be shorter). */
  final int chunkLength(int i) {
    long start = i * chunkSize;
    return (int) Math.min(chunkSize, capacity - start);
  }

  /** Called once by the subclass constructor with the chunks it allocated or mapped. */
  final void install(ByteBuffer[] buffers) {
    this.chunks = buffers;
  }

  @Override
  public final long capacity() {
    return capacity;
  }

  @Override
  public final int slabSize() {
    return slabSize;
  }

  @Override
  public final boolean isZeroCopy() {
    return true;
  }

  @Override
  public final ByteBuffer view(long address, int length) {
    return range(address, length).slice().asReadOnlyBuffer();
  }

  @Override
  public final ByteBuffer writable(long address, int length) {
    return range(address, length).slice();
  }

  @Override
  public final void read(long address, ByteBuffer dst) {
    dst.put(range(address, dst.remaining()));
  }

  @Override
  public final void write(long address, ByteBuffer src) {
    range(address, src.remaining()).put(src);
  }

  @Override
  public final void close() {
    ByteBuffer[] toFree;
    synchronized (this) {
      toFree = chunks;
      chunks = null;
    }
    if (toFree != null) {
      freeAll(toFree);
      released();
    }
  }

  /** Called once by close(), after the chunks are freed: a subclass releases what it holds. */
  void released() {}

  /** The live chunks. */
  final ByteBuffer[] current() {
    ByteBuffer[] c = chunks;
    if (c == null) {
      throw new IllegalStateException(describe() + " is closed");
    }
    return c;
  }

  /** A duplicate of the chunk holding the range, positioned on it. */
  private ByteBuffer range(long address, int length) {
    Slabs.checkRange(address, length, capacity, slabSize);
    ByteBuffer[] c = current();
    if (length == 0) {
      return ByteBuffer.allocate(0); // address may equal capacity: there is no chunk to slice
    }
    int i = (int) (address / chunkSize);
    int start = (int) (address - i * chunkSize);
    ByteBuffer chunk = c[i].duplicate();
    chunk.limit(start + length).position(start);
    return chunk;
  }

  /** Frees direct buffers or unmaps mappings; used by close() and by failed constructors. */
  static void freeAll(ByteBuffer[] buffers) {
    if (buffers == null) {
      return;
    }
    for (int i = 0; i < buffers.length; i++) {
      if (buffers[i] != null) {
        DirectMemory.free(buffers[i]);
        buffers[i] = null;
      }
    }
  }
}
