/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * The {@code mmap:PATH} engine: one file mapped read-write in chunks of whole slabs. Zero-copy
 * and persistent; the page cache holds the contents, {@link #sync()} writes them back.
 *
 * <pre>
 * Invariants
 *   A ByteBuffer addresses at most 2^31 - 1 bytes, so the file is mapped in chunks of
 *   chunkSize = max(slabSize, MAX_CHUNK) bytes (both powers of two, so a chunk holds whole
 *   slabs and no slab straddles two mappings); the last chunk may be shorter.
 *   After close() chunks is null and every mapping is unmapped (or left to the GC if
 *   invokeCleaner is unavailable). The file itself is closed once mapped: mappings need no fd.
 *
 * Concurrency
 *   As OffHeapEngine: lock-free on duplicates; close() must not run concurrently with other
 *   operations, and touching a view after close() is a use-after-unmap that can crash the JVM.
 *
 * Memory layout
 *   engine offset o lives in chunks[o >>> chunkShift] at position o & (chunkSize - 1), which
 *   is also byte o of the file: the on-disk layout is the file engine's.
 * </pre>
 */
final class MmapEngine implements Engine {
  /** Largest mapping; a power of two below 2 GB. */
  static final int MAX_CHUNK = 1 << 30;

  private final Path path;
  private final long capacity;
  private final int slabSize;
  private final int chunkShift;
  private volatile MappedByteBuffer[] chunks;

  MmapEngine(Path path, long capacity, int slabSize) throws IOException {
    this(path, capacity, slabSize, MAX_CHUNK);
  }

  /** With a smaller {@code maxChunk} (a power of two), so tests can map several chunks. */
  MmapEngine(Path path, long capacity, int slabSize, int maxChunk) throws IOException {
    Slabs.checkGeometry(capacity, slabSize);
    if (maxChunk <= 0 || Integer.bitCount(maxChunk) != 1) {
      throw new IllegalArgumentException("chunk size " + maxChunk + " is not a power of two");
    }
    this.path = path;
    this.capacity = capacity;
    this.slabSize = slabSize;
    int chunkSize = Math.max(slabSize, maxChunk);
    this.chunkShift = Integer.numberOfTrailingZeros(chunkSize);
    MappedByteBuffer[] mapped = new MappedByteBuffer[(int) ((capacity - 1) / chunkSize + 1)];
    try (BackingFile file = BackingFile.open(path, capacity)) {
      for (int i = 0; i < mapped.length; i++) {
        long start = (long) i * chunkSize;
        mapped[i] = file.map(start, (int) Math.min(chunkSize, capacity - start));
      }
    } catch (IOException | RuntimeException e) {
      unmapAll(mapped);
      throw e;
    }
    this.chunks = mapped;
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
    return true;
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
    for (MappedByteBuffer chunk : current()) {
      chunk.force();
    }
  }

  @Override
  public String describe() {
    return "mmap:" + path;
  }

  @Override
  public void close() {
    MappedByteBuffer[] toUnmap;
    synchronized (this) {
      toUnmap = chunks;
      chunks = null;
    }
    unmapAll(toUnmap);
  }

  /** A duplicate of the chunk holding the range, positioned on it. */
  private ByteBuffer range(long offset, int length) {
    Slabs.checkRange(offset, length, capacity, slabSize);
    MappedByteBuffer[] mapped = current();
    if (length == 0) {
      return ByteBuffer.allocate(0); // offset may equal capacity: there is no chunk to slice
    }
    int start = (int) (offset & ((1L << chunkShift) - 1));
    ByteBuffer chunk = mapped[(int) (offset >>> chunkShift)].duplicate();
    chunk.limit(start + length).position(start);
    return chunk;
  }

  private MappedByteBuffer[] current() {
    MappedByteBuffer[] mapped = chunks;
    if (mapped == null) {
      throw new IllegalStateException(describe() + " is closed");
    }
    return mapped;
  }

  private static void unmapAll(MappedByteBuffer[] mapped) {
    if (mapped == null) {
      return;
    }
    for (int i = 0; i < mapped.length; i++) {
      DirectMemory.free(mapped[i]);
      mapped[i] = null;
    }
  }
}
