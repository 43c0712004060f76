/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * The {@code mmap:PATH} engine: one file mapped read-write in chunks of whole slabs. Zero-copy
 * and persistent; the page cache holds the contents, {@link #sync()} writes them back.
 *
 * <p>A ByteBuffer addresses at most 2^31 - 1 bytes, so the file is mapped in chunks of
 * {@code max(slabSize, MAX_CHUNK)} bytes (both powers of two, so no slab straddles two mappings);
 * engine address o is byte o of the file, the file engine's layout. Access, concurrency and
 * unmapping: {@link MemoryEngine} (touching a view after close is a use-after-unmap that can crash
 * the JVM).
 *
 * <p>The file is fully allocated before it is mapped ({@link Reservation}): a store into a page
 * the file system cannot back raises SIGBUS, which kills the JVM, so a file system too small for
 * the capacity is refused at open instead. The file stays open, and locked, until {@link #close()}
 * has unmapped it ({@link BackingFile}), so no second cache can map it meanwhile.
 */
final class MmapEngine extends MemoryEngine {
  /** Largest mapping; a power of two below 2 GB. */
  static final int MAX_CHUNK = 1 << 30;

  private final Path path;
  private final BackingFile file;

  MmapEngine(Path path, long capacity, int slabSize) throws IOException {
    this(path, capacity, slabSize, MAX_CHUNK);
  }

  /**
   * With a smaller {@code maxChunk} (a power of two), so tests can map several chunks. A chunk
   * is the most whole slabs that fit in {@code maxChunk}, and at least one.
   */
  MmapEngine(Path path, long capacity, int slabSize, int maxChunk) throws IOException {
    super(capacity, slabSize, checkChunk(maxChunk, slabSize));
    this.path = path;
    ByteBuffer[] mapped = new ByteBuffer[chunkCount()];
    BackingFile opened = BackingFile.open(path, capacity, true);
    try {
      long start = 0;
      for (int i = 0; i < mapped.length; i++) {
        mapped[i] = opened.map(start, chunkLength(i));
        start += chunkLength(i);
      }
    } catch (IOException | RuntimeException e) {
      freeAll(mapped);
      try {
        opened.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    this.file = opened;
    install(mapped);
  }

  private static int checkChunk(int maxChunk, int slabSize) {
    if (maxChunk <= 0 || Integer.bitCount(maxChunk) != 1) {
      throw new IllegalArgumentException("chunk size " + maxChunk + " is not a power of two");
    }
    return Math.max(1, maxChunk / slabSize) * slabSize;
  }

  @Override
  public boolean isPersistent() {
    return true;
  }

  @Override
  public void sync() {
    for (ByteBuffer chunk : current()) {
      ((MappedByteBuffer) chunk).force();
    }
  }

  /** Closes the file and releases its lock, once the mappings are gone. */
  @Override
  void released() {
    try {
      file.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing " + path + " failed", e);
    }
  }

  @Override
  public String describe() {
    return "mmap:" + path;
  }
}
