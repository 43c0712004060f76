/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import com.intel.pmem.llpl.MemoryPool;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The {@code llpl} back end: stores and flushes through Intel LLPL's {@link MemoryPool}, whose
 * JNI library maps the pool with libpmem ({@code pmem_map_file}) and flushes with
 * {@code pmem_persist} (CLWB/CLFLUSHOPT and a fence on real or emulated pmem).
 *
 * <p>LLPL's {@code MemoryPool} has no buffer view, so zero-copy reads use a second, Java mapping
 * of the same file ({@link PmemRegion}). Both are shared mappings of the same pages (the DAX
 * pages themselves on fsdax, the page cache on tmpfs), so a store through one is seen through
 * the other, and a cache-line flush through LLPL's address writes back the line whatever mapping
 * dirtied it. An LLPL pool is a plain file with no header of its own: pool offset p is byte p.
 *
 * <p>Thread safety: {@code MemoryPool} accessors are thread safe for disjoint ranges, as the
 * layout guarantees. {@link #close()} unmaps LLPL's mapping through its package-private
 * {@code close()} (LLPL 1.2 has no public close; upstream is archived, so this will not move).
 */
final class LlplRegion extends PmemRegion {
  private final MemoryPool pool;
  private final ThreadLocal<byte[]> scratch = ThreadLocal.withInitial(() -> new byte[64 * 1024]);

  private LlplRegion(Path path, long size, int chunkSize, MemoryPool pool) throws IOException {
    super(path, size, chunkSize);
    this.pool = pool;
    MappedByteBuffer[] mapped = new MappedByteBuffer[chunkCount()];
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      for (int i = 0; i < mapped.length; i++) {
        mapped[i] = ch.map(FileChannel.MapMode.READ_WRITE, chunkStart(i), chunkLength(i));
      }
    } catch (IOException | RuntimeException e) {
      unmapAll(mapped);
      throw e;
    }
    install(mapped);
  }

  /**
   * Opens the existing pool file {@code path} of {@code size} bytes with LLPL.
   *
   * @throws IOException saying what to install or set if LLPL or its native libraries cannot
   *     be loaded; never falls back to the dax back end
   */
  static LlplRegion open(Path path, long size, int chunkSize) throws IOException {
    MemoryPool pool;
    try {
      pool = MemoryPool.openPool(path.toString());
    } catch (LinkageError e) {
      throw new IOException(Backend.LLPL.cannotStart(e), e);
    } catch (RuntimeException e) {
      throw new IOException("LLPL cannot open " + path + ": " + e.getMessage(), e);
    }
    try {
      if (pool.size() != size) {
        throw new IOException("LLPL mapped " + pool.size() + " bytes of " + path + ", expected "
            + size);
      }
      return new LlplRegion(path, size, chunkSize, pool);
    } catch (IOException | RuntimeException e) {
      closePool(pool); // no LLPL mapping outlives a failed open
      throw e;
    }
  }

  @Override
  void put(long offset, ByteBuffer src) {
    int n = src.remaining();
    if (src.hasArray()) {
      pool.copyFromByteArray(src.array(), src.arrayOffset() + src.position(), offset, n);
      src.position(src.position() + n);
      return;
    }
    byte[] buf = scratch.get();
    if (buf.length < n) {
      buf = new byte[n];
      scratch.set(buf);
    }
    src.get(buf, 0, n);
    pool.copyFromByteArray(buf, 0, offset, n);
  }

  @Override
  void put(long offset, byte[] src, int from, int length) {
    pool.copyFromByteArray(src, from, offset, length);
  }

  @Override
  void putLong(long offset, long value) {
    pool.setLong(offset, value);
  }

  @Override
  void putInt(long offset, int value) {
    pool.setInt(offset, value);
  }

  @Override
  void zero(long offset, long length) {
    pool.setMemory((byte) 0, offset, length);
  }

  @Override
  void flush(long offset, long length) {
    pool.flush(offset, length);
  }

  @Override
  String describe() {
    return "llpl (libpmem pmem_persist)";
  }

  @Override
  public void close() {
    super.close();
    closePool(pool);
  }

  private static void closePool(MemoryPool pool) {
    try {
      Method close = pool.getClass().getDeclaredMethod("close");
      close.setAccessible(true);
      close.invoke(pool);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // the mapping then stays until the JVM exits: address space only, the data is durable
    }
  }
}
