/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import io.tiercache.bucket.meta.BlockMeta;
import java.util.function.Predicate;

/**
 * An optional capability of a persistent {@link Engine}: it keeps the L2's index (one record per
 * slot) and slab map in its own durable memory, beside the blocks, so that a restart is warm
 * without a checkpoint file. {@code cache-pmem} provides it; {@link Engine#durableIndex()}
 * returns null for every engine of cache-bucket.
 *
 * <h2>What the L2 promises (the calls, in order)</h2>
 * <ol>
 *   <li>{@link #publish}: the block's bytes are written into its slot (with {@code write}) and
 *       the slot is not yet in the L2's index. The engine makes bytes, slab class and record
 *       durable, in that order, the record last by one 8-byte store.</li>
 *   <li>{@link #remove}: called when a block leaves the L2's index, always before its slot may
 *       be freed and reused, and before the slab holding it may change size class (a slab
 *       changes class only once all its slots are free). Not called at shutdown: the records
 *       survive it.</li>
 *   <li>{@link #restore}: called once, before the L2 serves, with the slots the L2 claimed;
 *       entries the L2 rejects are invalidated by the engine.</li>
 * </ol>
 * Thus at every instant a valid record names a slot whose bytes are those it describes, and a
 * crash at any point leaves records that are either valid and right, or invalid.
 *
 * <h2>Concurrency</h2>
 * {@code publish} and {@code remove} may run concurrently for different slots (the L2 never
 * runs them at once for one slot); {@code restore} runs alone.
 */
public interface DurableIndex {
  /**
   * Makes the block in slot {@code m.handle} of class {@code m.sizeClass} durable: its file
   * ({@code m.file}), the file's region ({@code m.region}: encoded name, null if unknown) where
   * the record has room for it, so the region's cached bytes are known right after a restart,
   * and {@code m}'s {@link io.tiercache.bucket.meta.BlockRecord} fields ({@code m.flags} without
   * {@code F_VERIFIED}). Returns false if it cannot (e.g. a file name longer than a record
   * holds): the block is still cached, only not across a restart.
   */
  boolean publish(BlockMeta m);

  /** Invalidates the record of slot {@code handle}, durably, if it has one. */
  void remove(long handle);

  /**
   * Offers every valid record to {@code claim}, as a {@link BlockMeta} with its handle, size
   * class, file, region (or null) and record fields, its deserializer already mapped to this
   * JVM's id (the instance may be reused for the next record); records it refuses are
   * invalidated. Reads only records, never blocks. Returns the number of valid records found.
   */
  int restore(Predicate<BlockMeta> claim);
}
