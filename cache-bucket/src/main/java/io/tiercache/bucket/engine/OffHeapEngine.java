/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.nio.ByteBuffer;

/**
 * The {@code offheap} engine: one direct buffer per slab. Zero-copy, not persistent.
 *
 * <pre>
 * Invariants
 *   slabs.length == capacity / slabSize; each slab is a direct buffer of slabSize bytes that
 *   nobody but this class moves the position or limit of (all access goes through duplicates).
 *   After close() slabs is null and the memory is freed (or left to the GC if invokeCleaner is
 *   unavailable).
 *
 * Concurrency
 *   view/read/write are lock-free: each works on its own duplicate of a slab. close() must not
 *   run concurrently with them, and no view may be used after it: the L2 closes the engine only
 *   once its writers have stopped and every pin has been released. Operations that start after
 *   close() throw IllegalStateException.
 *
 * Memory layout
 *   engine offset o lives in slabs[o / slabSize] at position o % slabSize.
 * </pre>
 */
final class OffHeapEngine implements Engine {
  private final long capacity;
  private final int slabSize;
  private final int slabShift;
  private volatile ByteBuffer[] slabs;

  /**
   * Allocates {@code capacity / slabSize} direct buffers.
   *
   * @throws OutOfMemoryError if direct memory runs out; the slabs already allocated are freed
   */
  OffHeapEngine(long capacity, int slabSize) {
    Slabs.checkGeometry(capacity, slabSize);
    this.capacity = capacity;
    this.slabSize = slabSize;
    this.slabShift = Integer.numberOfTrailingZeros(slabSize);
    ByteBuffer[] allocated = new ByteBuffer[(int) (capacity / slabSize)];
    try {
      for (int i = 0; i < allocated.length; i++) {
        allocated[i] = ByteBuffer.allocateDirect(slabSize);
      }
    } catch (OutOfMemoryError e) {
      freeAll(allocated);
      throw e;
    }
    this.slabs = allocated;
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public int slabSize() {
    return slabSize;
  }

  @Override
  public boolean isZeroCopy() {
    return true;
  }

  @Override
  public boolean isPersistent() {
    return false;
  }

  @Override
  public ByteBuffer view(long offset, int length) {
    return range(offset, length).slice().asReadOnlyBuffer();
  }

  @Override
  public void read(long offset, ByteBuffer dst) {
    dst.put(range(offset, dst.remaining()));
  }

  @Override
  public void write(long offset, ByteBuffer src) {
    range(offset, src.remaining()).put(src);
  }

  @Override
  public void sync() {
    // volatile: nothing to make durable
  }

  @Override
  public String describe() {
    return "offheap";
  }

  @Override
  public void close() {
    ByteBuffer[] toFree;
    synchronized (this) {
      toFree = slabs;
      slabs = null;
    }
    freeAll(toFree);
  }

  /** A duplicate of the slab holding the range, positioned on it. */
  private ByteBuffer range(long offset, int length) {
    Slabs.checkRange(offset, length, capacity, slabSize);
    ByteBuffer[] current = slabs;
    if (current == null) {
      throw new IllegalStateException("offheap engine is closed");
    }
    if (length == 0) {
      return ByteBuffer.allocate(0); // offset may equal capacity: there is no slab to slice
    }
    int start = (int) (offset & (slabSize - 1));
    ByteBuffer slab = current[(int) (offset >>> slabShift)].duplicate();
    slab.limit(start + length).position(start);
    return slab;
  }

  private static void freeAll(ByteBuffer[] buffers) {
    if (buffers == null) {
      return;
    }
    for (int i = 0; i < buffers.length; i++) {
      DirectMemory.free(buffers[i]);
      buffers[i] = null;
    }
  }
}
