/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.nio.ByteBuffer;

/**
 * The {@code offheap} engine: one direct buffer per slab (a chunk is a slab). Zero-copy, not
 * persistent. Access, concurrency and freeing: {@link MemoryEngine}.
 */
final class OffHeapEngine extends MemoryEngine {
  /**
   * Allocates {@code capacity / slabSize} direct buffers.
   *
   * @throws OutOfMemoryError if direct memory runs out; the slabs already allocated are freed
   */
  OffHeapEngine(long capacity, int slabSize) {
    super(capacity, slabSize, slabSize);
    ByteBuffer[] allocated = new ByteBuffer[chunkCount()];
    try {
      for (int i = 0; i < allocated.length; i++) {
        allocated[i] = ByteBuffer.allocateDirect(slabSize);
      }
    } catch (OutOfMemoryError e) {
      freeAll(allocated);
      throw e;
    }
    install(allocated);
  }

  @Override
  public boolean isPersistent() {
    return false;
  }

  @Override
  public void sync() {
    // volatile: nothing to make durable
  }

  @Override
  public String describe() {
    return "offheap";
  }
}
