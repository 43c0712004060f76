/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * Interns HFile names to compact int ids and records, per file, the offsets of the blocks a tier
 * holds, so that {@code evictBlocksByHfileName} (compaction, region close) costs
 * O(blocks of that file) and not O(cache).
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>A file is registered while at least one of its blocks is; the last {@link #remove}
 *       unregisters it and frees its id for the garbage collector only, never for reuse by
 *       another name while an index entry could still carry it: ids grow monotonically.</li>
 *   <li>{@link #offsets} returns exactly the offsets added and not yet removed.</li>
 * </ul>
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method. The name map is a {@link ConcurrentHashMap}; each file's
 * offset set is guarded by the monitor of its {@link FileEntry}. An entry whose last offset is
 * removed is marked dead under that monitor and dropped from the map; an {@code add} racing with
 * that retries on a fresh entry, so no offset is ever recorded in a dead entry.
 *
 * <h2>Residency</h2>
 * Per file the registry also keeps the bytes and data blocks added with
 * {@link #add(String, long, long, boolean, String)}, and the file's region (from the block key's
 * path, {@code .../<region>/<family>/<file>}); per region the sum of its files' bytes. HBase
 * reads them through {@code BlockCache#getRegionCachedInfo} (region cached ratio, cache-aware
 * balancer) and {@code notifyFileCachingCompleted} (fully cached files).
 *
 * <h2>Memory</h2>
 * Per file: one entry (~100 bytes incl. the map node). Per block: one long slot in an open
 * addressing table kept between 3/8 and 3/4 full, so 11–21 bytes.
 */
public final class FileRegistry {
  private final ConcurrentHashMap<String, FileEntry> byName = new ConcurrentHashMap<>();
  private final AtomicInteger nextId = new AtomicInteger();
  private volatile AtomicReferenceArray<FileEntry> byId = new AtomicReferenceArray<>(64);

  /** Cached bytes per region (encoded name), for HBase's region cached ratio. */
  private final ConcurrentHashMap<String, AtomicLong> regionBytes = new ConcurrentHashMap<>();

  /** One registered file. */
  private static final class FileEntry {
    final String name;
    final int id;
    final OffsetSet offsets = new OffsetSet(); // guarded by this
    boolean dead; // guarded by this
    /** Encoded name of the file's region, or null if no key carried the file's path. */
    String region; // guarded by this
    long bytes; // guarded by this
    int dataBlocks; // guarded by this

    FileEntry(String name, int id) {
      this.name = name;
      this.id = id;
    }
  }

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
      FileEntry e = byName.computeIfAbsent(file, this::newEntry);
      synchronized (e) {
        if (!e.dead) {
          if (e.region == null && region != null) {
            e.region = region;
            if (e.bytes > 0) {
              addRegionBytes(region, e.bytes);
            }
          }
          if (e.offsets.add(offset)) {
            e.bytes += bytes;
            e.dataBlocks += data ? 1 : 0;
            addRegionBytes(e.region, bytes);
          }
          return e.id;
        }
      }
      byName.remove(file, e);
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
    FileEntry e = byName.get(file);
    if (e == null) {
      return false;
    }
    synchronized (e) {
      if (e.dead || !e.offsets.remove(offset)) {
        return false;
      }
      e.bytes -= bytes;
      e.dataBlocks -= data ? 1 : 0;
      addRegionBytes(e.region, -bytes);
      if (e.offsets.size() == 0) {
        e.dead = true;
        byName.remove(file, e);
        byId.compareAndSet(e.id & (byId.length() - 1), e, null);
      }
      return true;
    }
  }

  /** Returns a snapshot of the offsets held for {@code file}; empty if none. */
  public long[] offsets(String file) {
    FileEntry e = byName.get(file);
    if (e == null) {
      return new long[0];
    }
    synchronized (e) {
      return e.dead ? new long[0] : e.offsets.toArray();
    }
  }

  /** Returns whether a block of {@code file} at {@code offset} is registered. */
  public boolean contains(String file, long offset) {
    FileEntry e = byName.get(file);
    if (e == null) {
      return false;
    }
    synchronized (e) {
      return !e.dead && e.offsets.contains(offset);
    }
  }

  /** Returns the id of {@code file}, or -1 if none of its blocks is registered. */
  public int idOf(String file) {
    FileEntry e = byName.get(file);
    return e == null ? -1 : e.id;
  }

  /**
   * Returns the name of a registered file id, or null if the id is not (or no longer)
   * registered. Lookup is O(1) for recently registered ids; older ids fall back to a scan of
   * the registered files.
   */
  public String nameOf(int id) {
    AtomicReferenceArray<FileEntry> table = byId;
    FileEntry e = table.get(id & (table.length() - 1));
    if (e != null && e.id == id) {
      return e.name;
    }
    for (FileEntry f : byName.values()) {
      if (f.id == id) {
        return f.name;
      }
    }
    return null;
  }

  /**
   * Returns the name of a registered file id if the id table still points at it, else null
   * (an id whose table entry a newer file took); O(1), never scans. For heuristics on hot paths
   * (the L2's admission filter) that can do without an answer.
   */
  public String nameIfIndexed(int id) {
    AtomicReferenceArray<FileEntry> table = byId;
    FileEntry e = table.get(id & (table.length() - 1));
    return e != null && e.id == id ? e.name : null;
  }

  /** Number of {@code file}'s registered blocks added as data blocks. */
  public int dataBlocksOf(String file) {
    return read(file, 0, e -> e.dataBlocks);
  }

  /** The region {@code file}'s blocks were added with, or null. */
  public String regionOf(String file) {
    return read(file, null, e -> e.region);
  }

  /** {@code field} of a live file's entry, read under its monitor; {@code none} otherwise. */
  private <T> T read(String file, T none, Function<FileEntry, T> field) {
    FileEntry e = byName.get(file);
    if (e == null) {
      return none;
    }
    synchronized (e) {
      return e.dead ? none : field.apply(e);
    }
  }

  /**
   * Tells the registry {@code file}'s region if it did not know it, counting the file's bytes to
   * that region; does nothing for a file with no blocks or one whose region is known. Blocks
   * restored from a checkpoint carry only the file's name (the checkpoint keeps no path), so
   * without this a warm restart would report no cached bytes for any region until a new block
   * of each file is cached; HBase's prefetch names the file's path when it completes.
   *
   * @return whether the region was set
   */
  public boolean setRegion(String file, String region) {
    FileEntry e = byName.get(file);
    if (e == null || region == null) {
      return false;
    }
    synchronized (e) {
      if (e.dead || e.region != null) {
        return false;
      }
      e.region = region;
      addRegionBytes(region, e.bytes);
      return true;
    }
  }

  /** A snapshot of the cached bytes per region (regions with none left are absent). */
  public Map<String, Long> regionBytes() {
    Map<String, Long> out = new HashMap<>();
    regionBytes.forEach((region, bytes) -> {
      long b = bytes.get();
      if (b > 0) {
        out.put(region, b);
      }
    });
    return out;
  }

  private void addRegionBytes(String region, long delta) {
    if (region == null || delta == 0) {
      return;
    }
    // Entries are kept at 0 rather than removed (a removal would race with another file's add);
    // a RegionServer hosts a bounded number of regions over its life.
    regionBytes.computeIfAbsent(region, r -> new AtomicLong()).addAndGet(delta);
  }

  /** Number of files with at least one registered block. */
  public int fileCount() {
    return byName.size();
  }

  /** Total number of registered offsets (O(files)). */
  public long blockCount() {
    long n = 0;
    for (FileEntry e : byName.values()) {
      synchronized (e) {
        n += e.offsets.size();
      }
    }
    return n;
  }

  /** Heap bytes used by the offset tables (O(files)); excludes the name strings. */
  public long heapBytes() {
    long n = 0;
    for (FileEntry e : byName.values()) {
      synchronized (e) {
        n += 96 + e.offsets.heapBytes();
      }
    }
    return n;
  }

  private FileEntry newEntry(String name) {
    int id = nextId.getAndIncrement();
    if (id < 0) {
      throw new IllegalStateException("more than 2^31 HFiles registered over this cache's life");
    }
    FileEntry e = new FileEntry(name, id);
    AtomicReferenceArray<FileEntry> table = byId;
    if (byName.size() * 2 > table.length()) {
      growIdTable(table);
      table = byId;
    }
    table.set(id & (table.length() - 1), e);
    return e;
  }

  private synchronized void growIdTable(AtomicReferenceArray<FileEntry> seen) {
    if (byId != seen) {
      return;
    }
    AtomicReferenceArray<FileEntry> bigger = new AtomicReferenceArray<>(seen.length() * 2);
    for (FileEntry f : byName.values()) {
      bigger.set(f.id & (bigger.length() - 1), f);
    }
    byId = bigger;
  }
}
