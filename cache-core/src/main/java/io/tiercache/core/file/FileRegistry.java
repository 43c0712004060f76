/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import java.util.Map;

/**
 * The L1's file registry: {@link HFiles} keeping, per file, the set of the block offsets the
 * tier holds ({@link OffsetSet}), so that {@code evictBlocksByHfileName} (compaction, region
 * close) costs O(blocks of that file) and not O(cache). (The L2 keeps its own per-file index
 * table in {@link HFiles} instead, see cache-bucket's {@code index.BlockIndex}.)
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>A file is registered while at least one of its blocks is; the last {@link #remove}
 *       unregisters it and frees its id for the garbage collector only, never for reuse by
 *       another name: ids grow monotonically.</li>
 *   <li>{@link #offsets} returns exactly the offsets added and not yet removed.</li>
 * </ul>
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method. Each file's offset set is guarded by the monitor of its
 * {@link HFiles.Entry}. An entry whose last offset is removed is marked dead under that monitor
 * and dropped from the map; an {@code add} racing with that retries on a fresh entry, so no
 * offset is ever recorded in a dead entry.
 *
 * <h2>Memory</h2>
 * Per file: one entry (~100 bytes incl. the map node). Per block: one long slot in an open
 * addressing table kept between 3/8 and 3/4 full, so 11–21 bytes.
 */
public final class FileRegistry {
  private final HFiles<OffsetSet> files = new HFiles<>(id -> new OffsetSet());

  /**
   * Records that a block of {@code file} at {@code offset} is now held.
   *
   * @return the file's id, stable for as long as any of its blocks stay registered
   */
  public int add(String file, long offset) {
    return add(file, offset, 0, false, null);
  }

  /**
   * Records that a block of {@code file} at {@code offset}, {@code bytes} long, is now held, and
   * counts its bytes to the file and to {@code region} (the file's region's encoded name, or null
   * if unknown; the first region given for a file stays its region).
   *
   * @return the file's id, stable for as long as any of its blocks stay registered
   */
  public int add(String file, long offset, long bytes, boolean data, String region) {
    while (true) {
      HFiles.Entry<OffsetSet> e = files.open(file);
      synchronized (e) {
        if (!e.isDead()) {
          if (e.blocks.add(offset)) {
            files.added(e, bytes, data, region);
          } else {
            files.added(e, 0, false, region);
          }
          return e.id;
        }
      }
    }
  }

  /** Records that the block at {@code offset} of {@code file} is no longer held. */
  public boolean remove(String file, long offset) {
    return remove(file, offset, 0, false);
  }

  /**
   * Records that the block at {@code offset} of {@code file}, added with {@code bytes} and
   * {@code data}, is no longer held.
   */
  public boolean remove(String file, long offset, long bytes, boolean data) {
    HFiles.Entry<OffsetSet> e = files.get(file);
    if (e == null) {
      return false;
    }
    synchronized (e) {
      if (e.isDead() || !e.blocks.remove(offset)) {
        return false;
      }
      files.removed(e, bytes, data);
      return true;
    }
  }

  /** Returns a snapshot of the offsets held for {@code file}; empty if none. */
  public long[] offsets(String file) {
    HFiles.Entry<OffsetSet> e = files.get(file);
    if (e == null) {
      return new long[0];
    }
    synchronized (e) {
      return e.isDead() ? new long[0] : e.blocks.toArray();
    }
  }

  /** Returns whether a block of {@code file} at {@code offset} is registered. */
  public boolean contains(String file, long offset) {
    HFiles.Entry<OffsetSet> e = files.get(file);
    if (e == null) {
      return false;
    }
    synchronized (e) {
      return !e.isDead() && e.blocks.contains(offset);
    }
  }

  /** See {@link HFiles#idOf}. */
  public int idOf(String file) {
    return files.idOf(file);
  }

  /** See {@link HFiles#nameOf}. */
  public String nameOf(int id) {
    return files.nameOf(id);
  }

  /** See {@link HFiles#nameIfIndexed}. */
  public String nameIfIndexed(int id) {
    return files.nameIfIndexed(id);
  }

  /** See {@link HFiles#dataBlocksOf}. */
  public int dataBlocksOf(String file) {
    return files.dataBlocksOf(file);
  }

  /** See {@link HFiles#regionOf}. */
  public String regionOf(String file) {
    return files.regionOf(file);
  }

  /** See {@link HFiles#setRegion}. */
  public boolean setRegion(String file, String region) {
    return files.setRegion(file, region);
  }

  /** See {@link HFiles#regionBytes}. */
  public Map<String, Long> regionBytes() {
    return files.regionBytes();
  }

  /** Number of files with at least one registered block. */
  public int fileCount() {
    return files.fileCount();
  }

  /** Total number of registered offsets (O(files)). */
  public long blockCount() {
    return files.blockCount();
  }

  /** Heap bytes used by the offset tables (O(files)); excludes the name strings. */
  public long heapBytes() {
    return files.heapBytes();
  }
}
