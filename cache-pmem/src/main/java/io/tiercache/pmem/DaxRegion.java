/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The {@code dax} back end: the pool file mapped by the JDK, stores through the mapping.
 *
 * <p>On a filesystem mounted with {@code -o dax} (fsdax persistent memory, or CXL memory exposed
 * the same way) the file is mapped with {@code MAP_SYNC} ({@code ExtendedMapMode.READ_WRITE_SYNC},
 * JDK 14+), and {@link #flush} is {@code MappedByteBuffer.force(index, length)}, which the JDK
 * then implements as a write-back of each cache line (CLWB or CLFLUSHOPT) and a store fence: no
 * system call, the pmem programming model. Elsewhere (tmpfs in tests, a disk, JDK 11-13) the
 * mapping is an ordinary shared one and a flush is an {@code msync} of the pages; the mode is
 * logged at startup and shown by {@link #describe()}.
 *
 * <p>Thread safety: as {@link PmemRegion}; the method handles are immutable.
 */
final class DaxRegion extends PmemRegion {
  /** {@code MappedByteBuffer.force(int, int)}, JDK 13+; null on JDK 11 and 12. */
  private static final MethodHandle FORCE_RANGE = findForceRange();
  /** {@code jdk.nio.mapmode.ExtendedMapMode.READ_WRITE_SYNC}, JDK 14+; null before. */
  private static final FileChannel.MapMode READ_WRITE_SYNC = findSyncMode();

  private final boolean mapSync;

  DaxRegion(Path path, long size, int chunkSize) throws IOException {
    super(path, size, chunkSize);
    MappedByteBuffer[] mapped = new MappedByteBuffer[chunkCount()];
    boolean sync = READ_WRITE_SYNC != null;
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      for (int i = 0; i < mapped.length; i++) {
        if (sync) {
          try {
            mapped[i] = ch.map(READ_WRITE_SYNC, chunkStart(i), chunkLength(i));
            continue;
          } catch (IOException | UnsupportedOperationException e) {
            sync = false; // not a DAX filesystem: the first chunk tells, the rest follow
          }
        }
        mapped[i] = ch.map(FileChannel.MapMode.READ_WRITE, chunkStart(i), chunkLength(i));
      }
    } catch (IOException | RuntimeException e) {
      unmapAll(mapped); // the chunks mapped before the failure; the channel is closed
      throw e;
    }
    this.mapSync = sync;
    install(mapped);
  }

  @Override
  void put(long offset, ByteBuffer src) {
    putThroughMapping(offset, src);
  }

  @Override
  void put(long offset, byte[] src, int from, int length) {
    putThroughMapping(offset, src, from, length);
  }

  @Override
  void putLong(long offset, long value) {
    putLongThroughMapping(offset, value);
  }

  @Override
  void putInt(long offset, int value) {
    putIntThroughMapping(offset, value);
  }

  @Override
  void zero(long offset, long length) {
    byte[] zeros = new byte[64 * 1024];
    long at = offset;
    long end = offset + length;
    while (at < end) {
      int n = (int) Math.min(zeros.length, Math.min(end - at, chunkEnd(at) - at));
      putThroughMapping(at, zeros, 0, n);
      at += n;
    }
  }

  private long chunkEnd(long offset) {
    return offset - indexInChunk(offset) + chunkAt(offset).capacity();
  }

  @Override
  void flush(long offset, long length) {
    long at = offset;
    long end = offset + length;
    while (at < end) {
      MappedByteBuffer chunk = chunkAt(at);
      int index = indexInChunk(at);
      int n = (int) Math.min(end - at, chunk.capacity() - index);
      force(chunk, index, n);
      at += n;
    }
  }

  private static void force(MappedByteBuffer chunk, int index, int length) {
    if (FORCE_RANGE == null) {
      chunk.force(); // JDK 11/12: the whole chunk; correct, slower
      return;
    }
    try {
      FORCE_RANGE.invokeExact(chunk, index, length);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("force failed", t);
    }
  }

  @Override
  String describe() {
    return "dax (" + (mapSync ? "MAP_SYNC, cache-line flushes" : "shared mapping, msync flushes")
        + ")";
  }

  private static MethodHandle findForceRange() {
    try {
      return MethodHandles.publicLookup().findVirtual(MappedByteBuffer.class, "force",
          MethodType.methodType(MappedByteBuffer.class, int.class, int.class))
          .asType(MethodType.methodType(void.class, MappedByteBuffer.class, int.class,
              int.class));
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  private static FileChannel.MapMode findSyncMode() {
    try {
      return (FileChannel.MapMode) Class.forName("jdk.nio.mapmode.ExtendedMapMode")
          .getField("READ_WRITE_SYNC").get(null);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null;
    }
  }
}
