/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The storage behind the L2: a flat address space of {@link #capacity()} bytes that the slab
 * allocator carves into slabs of {@link #slabSize()} bytes. A block always lies inside one slab,
 * so no read or write crosses a slab boundary.
 *
 * <h2>Zero-copy versus copy</h2>
 * Memory engines ({@code offheap}, {@code mmap}, {@code pmem}) return {@link #isZeroCopy()} true:
 * the L2 serves reads from {@link #view}, a buffer over the engine's own memory, and pins the
 * slot until the reader releases. Other engines ({@code file}, {@code files}) copy with
 * {@link #read} into a buffer the caller owns.
 *
 * <h2>Concurrency</h2>
 * Implementations are thread safe: concurrent reads and writes of disjoint ranges proceed in
 * parallel. The L2 never reads a range while it writes it (a slot is published in the index only
 * after its write completes). {@link #read} and {@link #write} advance the buffer's position.
 *
 * <p>{@link #close()} must not run while any other call is in progress or any {@link #view} is
 * still in use: for memory engines it frees the memory, and a later access would read freed
 * memory. The L2 closes its engine only after its writers stopped and every pinned read was
 * released.
 */
public interface Engine extends Closeable {
  /** Total bytes, a whole number of slabs. */
  long capacity();

  /** Slab size in bytes; no view, read or write crosses a multiple of it. */
  int slabSize();

  /** Whether {@link #view} serves reads without copying. */
  boolean isZeroCopy();

  /** Whether contents survive a restart (file, files, mmap, pmem). */
  boolean isPersistent();

  /**
   * A read-only buffer over {@code [address, address + length)} of the engine's memory,
   * position 0, limit {@code length}. Valid until {@link #close()}. An engine address is where
   * a slot's bytes start in the engine ({@code SlabAllocator#address}), never a block's offset
   * in its HFile.
   *
   * @throws UnsupportedOperationException if the engine is not zero-copy
   */
  ByteBuffer view(long address, int length);

  /** Copies {@code dst.remaining()} bytes starting at {@code address} into {@code dst}. */
  void read(long address, ByteBuffer dst) throws IOException;

  /** Writes {@code src.remaining()} bytes at {@code address}. */
  void write(long address, ByteBuffer src) throws IOException;

  /** Makes everything written so far durable (no-op for volatile engines). */
  void sync() throws IOException;

  /**
   * The engine's durable index, or null (the default) if the L2 must checkpoint its index to
   * {@code hbase.bucketcache.persistent.path} to be warm after a restart. See
   * {@link DurableIndex} for the calls the L2 then makes and their order.
   */
  default DurableIndex durableIndex() {
    return null;
  }

  /**
   * Whether the {@link #durableIndex} may hold records from before this open (false for a pool
   * just created or re-formatted: the L2 then has nothing to restore and starts at once).
   */
  default boolean hasDurableRecords() {
    return durableIndex() != null;
  }

  /** The engine as configured, e.g. {@code offheap} or {@code file:/data/cache.bin}. */
  String describe();

  /** Releases memory and file handles; safe to call more than once. */
  @Override
  void close() throws IOException;
}
