/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

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
 * <h2>Memory</h2>
 * Per file: one entry (~100 bytes incl. the map node). Per block: one long slot in an open
 * addressing table kept between 3/8 and 3/4 full, so 11–21 bytes.
 */
public final class FileRegistry {
  private final ConcurrentHashMap<String, FileEntry> byName = new ConcurrentHashMap<>();
  private final AtomicInteger nextId = new AtomicInteger();
  private volatile AtomicReferenceArray<FileEntry> byId = new AtomicReferenceArray<>(64);

  /** One registered file. */
  private static final class FileEntry {
    final String name;
    final int id;
    final OffsetSet offsets = new OffsetSet(); // guarded by this
    boolean dead; // guarded by this

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
    while (true) {
      FileEntry e = byName.computeIfAbsent(file, this::newEntry);
      synchronized (e) {
        if (!e.dead) {
          e.offsets.add(offset);
          return e.id;
        }
      }
      byName.remove(file, e);
    }
  }

  /** Records that the block at {@code offset} of {@code file} is no longer held. */
  public boolean remove(String file, long offset) {
    FileEntry e = byName.get(file);
    if (e == null) {
      return false;
    }
    synchronized (e) {
      if (e.dead || !e.offsets.remove(offset)) {
        return false;
      }
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
