/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.Engines;
import io.tiercache.bucket.engine.FileGuard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code pmem:PATH} engine: the L2's blocks, index and slab map in one pool of persistent
 * memory ({@link PoolLayout}), reached through a {@link Backend}. Zero-copy, persistent, and warm
 * after a restart from its own {@link DurableIndex} ({@link PoolIndex}); no checkpoint file.
 *
 * <pre>
 * Invariants
 *   Engine address a is pool offset layout.dataBase + a; a view, read or write stays inside one
 *   slab of the data region. write() stores without flushing: a block becomes durable when the
 *   L2 publishes it (PoolIndex step (a)), and only published blocks need to survive.
 *
 *   The pool's FileGuard lock (the sibling "&lt;pool&gt;.lock") is held from open() to close(), so
 *   no second cache, in this JVM or another process, maps the same pool.
 *
 * Concurrency
 *   As Engine: view/read/write of disjoint ranges are lock free and thread safe; close() runs
 *   alone, after every view was released (it unmaps the pool, then releases the lock).
 * </pre>
 */
final class PmemEngine implements Engine {
  private static final Logger LOG = LoggerFactory.getLogger(PmemEngine.class);

  private final Path path;
  private final PoolLayout layout;
  private final PmemRegion region;
  private final PoolIndex index;
  private final FileGuard.Lock lock;
  /** Created or re-formatted by this open: no record to restore. */
  private final boolean formatted;
  private final AtomicBoolean closed = new AtomicBoolean();

  private PmemEngine(Path path, PoolLayout layout, PmemRegion region, FileGuard.Lock lock,
      boolean formatted) {
    this.formatted = formatted;
    this.path = path;
    this.layout = layout;
    this.region = region;
    this.lock = lock;
    this.index = new PoolIndex(region, layout);
  }

  /**
   * Opens the pool at {@code path} for {@code layout}, creating it if absent. A pool of other
   * geometry (size, slab or bucket sizes) is re-formatted, with a warning that says why; a file
   * that is not a pool at all is refused. The pool is locked ({@link FileGuard#lock}) until
   * {@link #close()}; a link, a non-regular file or another user's file at {@code path} is
   * refused, and a new pool is fully allocated before it is mapped ({@link PoolFile}).
   *
   * @throws io.tiercache.core.config.SettingException naming {@code hbase.bucketcache.ioengine}
   *     if the path is refused, in use by another cache, or its file system is too small
   */
  static PmemEngine open(Path path, PoolLayout layout, Backend backend) throws IOException {
    return open(path, layout, backend::open);
  }

  /** Maps a pool file as a {@link PmemRegion}: a {@link Backend}, or a test's simulated one. */
  @FunctionalInterface
  interface Regions {
    PmemRegion open(Path path, long size, int chunkSize) throws IOException;
  }

  /** As {@link #open(Path, PoolLayout, Backend)}, mapping the pool with {@code regions}. */
  static PmemEngine open(Path path, PoolLayout layout, Regions regions) throws IOException {
    FileGuard.Lock lock = FileGuard.lock(path, Engines.KEY);
    try {
      return open(path, layout, regions, lock);
    } catch (IOException | RuntimeException e) {
      try {
        lock.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private static PmemEngine open(Path path, PoolLayout layout, Regions regions,
      FileGuard.Lock lock) throws IOException {
    long length = PoolFile.length(path);
    boolean fresh = false;
    if (length < 0) {
      PoolFile.create(path, layout.poolSize);
      LOG.info("pmem: created pool {} of {} bytes for {}", path, layout.poolSize, layout);
      fresh = true;
    } else if (length != layout.poolSize) {
      refuseForeign(path, length);
      LOG.info("pmem: re-formatting pool {}: it is {} bytes, {} needs {}; its cached blocks "
          + "are dropped", path, length, layout, layout.poolSize);
      PoolFile.recreate(path, layout.poolSize);
      fresh = true;
    }
    PmemRegion region = regions.open(path, layout.poolSize, PmemRegion.chunkSize(
        layout.slabSize));
    try {
      String mismatch = layout.mismatch(region);
      if (mismatch != null) {
        if (!fresh) {
          LOG.info("pmem: re-formatting pool {}: it holds {}; its cached blocks are dropped",
              path, mismatch);
        }
        PoolIndex.format(region, layout, !fresh);
      }
      PmemEngine engine = new PmemEngine(path, layout, region, lock, fresh || mismatch != null);
      LOG.info("pmem: opened pool {} with the {} back end", path, region.describe());
      return engine;
    } catch (RuntimeException | Error e) {
      region.close();
      throw e;
    }
  }

  /** Refuses to re-format a non-empty file that does not start like a pool (or with zeroes). */
  private static void refuseForeign(Path path, long length) throws IOException {
    if (length < 8) {
      return;
    }
    ByteBuffer head = ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder());
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS)) {
      ch.read(head, 0);
    }
    long magic = head.getLong(0);
    if (magic != 0 && magic != PoolLayout.MAGIC) {
      throw new IOException(path + " exists and is not a TierCache pmem pool; remove it or "
          + "name another path");
    }
  }

  @Override
  public long capacity() {
    return layout.capacity;
  }

  @Override
  public int slabSize() {
    return layout.slabSize;
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
  public boolean hasDurableRecords() {
    return !formatted;
  }

  @Override
  public DurableIndex durableIndex() {
    return index;
  }

  private long poolOffset(long address, int length) {
    if (address < 0 || length < 0 || address > layout.capacity - length) {
      throw new IndexOutOfBoundsException(
          "range [" + address + ", +" + length + ") outside [0, " + layout.capacity + ")");
    }
    if (length > 0 && address / layout.slabSize != (address + length - 1) / layout.slabSize) {
      throw new IllegalArgumentException("range [" + address + ", +" + length
          + ") crosses a boundary of the " + layout.slabSize + "-byte slabs");
    }
    return layout.dataBase + address;
  }

  @Override
  public ByteBuffer view(long address, int length) {
    return region.range(poolOffset(address, length), length).slice().asReadOnlyBuffer();
  }

  @Override
  public void read(long address, ByteBuffer dst) {
    dst.put(region.range(poolOffset(address, dst.remaining()), dst.remaining()));
  }

  @Override
  public void write(long address, ByteBuffer src) {
    region.put(poolOffset(address, src.remaining()), src);
  }

  /** Flushes the whole data region; the L2 flushes each block as it publishes it. */
  @Override
  public void sync() {
    region.flush(layout.dataBase, layout.capacity);
  }

  @Override
  public String describe() {
    return "pmem:" + path;
  }

  /** The pool's layout; for tests that damage a pool on purpose. */
  PoolLayout layout() {
    return layout;
  }

  /** Blocks cached but not made durable (HFile name too long for a record). */
  long notDurable() {
    return index.notDurable();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        region.close();
      } finally {
        try {
          lock.close();
        } catch (IOException e) {
          LOG.warn("pmem: releasing the lock {} failed", lock.path(), e);
        }
      }
    }
  }

  @Override
  public String toString() {
    return describe() + " (" + region.describe() + ", " + layout + ")";
  }
}
