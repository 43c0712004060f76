/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.meta.BlockMeta;

/**
 * The one restore step, whatever the records come from (a checkpoint file or an engine's durable
 * index): claim the slot a record names, describe it with the verified flag cleared (so the first
 * read of the block checks its CRC32C), and publish it in the index. No block is read.
 *
 * <p>Used by one restoring thread, before the tier takes inserts.
 */
final class SlotClaims {
  private final SlabAllocator slabs;
  private final BlockIndex index;
  private final IndexedBlocks blocks;
  private int restored;

  SlotClaims(IndexedBlocks blocks) {
    this.blocks = blocks;
    this.slabs = blocks.slabs();
    this.index = blocks.index();
  }

  /**
   * Restores the block {@code m} describes (its handle, size class, file, region, block offset,
   * length, checksum, flags, this JVM's deserializer id and type) into its slot; false, with
   * nothing changed, if the class does not exist or the length does not fit it, the slot cannot
   * be claimed (another class, out of range, or taken), the index is full, or the key is already
   * restored in another slot. Overwrites {@code m}'s file id (with the registry's), flags and
   * cached-at time.
   */
  boolean claim(BlockMeta m) {
    long h = m.handle;
    if (!fits(m.sizeClass, m.length) || !SlabAllocator.fits(m.blockOffset, m.length)
        || index.peek(m.file, m.blockOffset) != Handles.NONE
        || !slabs.restore(h, m.sizeClass)) {
      return false;
    }
    m.fileId = index.idFor(m.file);
    m.flags &= ~BlockMeta.F_VERIFIED;
    m.cachedAt = 0;
    slabs.describe(h, m);
    long old = index.put(m.file, m.region, m.blockOffset, h);
    if (old == BlockIndex.FULL) {
      slabs.free(h);
      return false;
    }
    m.fileId = slabs.fileId(h);
    blocks.restored(h);
    restored++;
    return true;
  }

  /** Blocks restored so far. */
  int restored() {
    return restored;
  }

  /** Whether a restored record's class exists and its length fits a slot of that class. */
  private boolean fits(int sizeClass, int length) {
    return sizeClass >= 0 && sizeClass < slabs.classes().count() && length > 0
        && length <= slabs.classes().size(sizeClass);
  }
}
