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
import java.util.function.IntFunction;

/**
 * The HFiles a tier holds blocks of: name to compact int id, and per file what the tier keeps
 * about the file's blocks ({@code B}: the L1's {@link OffsetSet} through {@link FileRegistry},
 * the L2's per-file index table) with the file's residency (bytes, data blocks, region).
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>A file is registered while its {@code B} holds at least one block; the removal that
 *       empties it ({@link #removed}) unregisters it. Ids grow monotonically and are never
 *       reused, so an id a record still carries never names another file.</li>
 *   <li>A file's bytes and data blocks are the sums over the blocks added and not removed.</li>
 * </ul>
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method. The name map is a {@link ConcurrentHashMap}. The monitor of
 * an {@link Entry} guards its {@code B}'s changes, its residency and its dead flag: a caller that
 * changes a file's blocks does so inside {@code synchronized (entry)}, checks
 * {@link Entry#isDead()} first (a dead entry was emptied and dropped: get a fresh one with
 * {@link #open} and retry), and reports each block added or removed there ({@link #added},
 * {@link #removed}). Readers of {@code B} that must not contend on a hot file (the L2's hit
 * path) use {@code B}'s own read protocol, not the monitor.
 *
 * <h2>Residency</h2>
 * Per file the bytes and data blocks added, and the file's region (from the block key's path,
 * {@code .../<region>/<family>/<file>}); per region the sum of its files' bytes. HBase reads them
 * through {@code BlockCache#getRegionCachedInfo} (region cached ratio, cache-aware balancer) and
 * {@code notifyFileCachingCompleted} (fully cached files).
 *
 * <h2>Memory</h2>
 * Per file one entry (about 100 bytes with the map node) plus its {@code B}.
 *
 * @param <B> what the tier keeps per file about its blocks
 */
public final class HFiles<B extends HFiles.Blocks> {
  /** What a tier keeps per file about the file's blocks. */
  public interface Blocks {
    /** Blocks held; called under the entry's monitor. */
    int size();

    /** Heap bytes of this structure; called under the entry's monitor. */
    long heapBytes();
  }

  private final IntFunction<B> newBlocks;
  private final ConcurrentHashMap<String, Entry<B>> byName = new ConcurrentHashMap<>();
  private final AtomicInteger nextId = new AtomicInteger();
  /**
   * Id to entry: open addressing (linear probing from {@code id & mask}) over every registered
   * file, so {@link #get(int)} is O(1) for any live id (a CLOCK eviction names its block's file by
   * id). Removed entries leave {@link #GONE} so probe chains stay intact; the table is rebuilt
   * without them, at most 1/4 full, when live entries and tombstones pass half of it. Read lock
   * free; changed (and replaced) only under {@code this}'s monitor: files come and go rarely.
   */
  private volatile AtomicReferenceArray<Entry<?>> byId = new AtomicReferenceArray<>(64);
  private int idSlotsUsed; // guarded by this: live entries and tombstones in byId
  private static final Entry<?> GONE = new Entry<>("", -1, null);
  /** Cached bytes per region (encoded name), for HBase's region cached ratio. */
  private final ConcurrentHashMap<String, AtomicLong> regionBytes = new ConcurrentHashMap<>();

  /** Registers files whose blocks {@code newBlocks} (given the file's id) keeps. */
  public HFiles(IntFunction<B> newBlocks) {
    this.newBlocks = newBlocks;
  }

  /** One registered file. Its monitor guards {@link #blocks}' changes and the fields below. */
  public static final class Entry<B> {
    public final String name;
    public final int id;
    public final B blocks;
    /** Written under the monitor; volatile so that {@link #regionOf} reads it without. */
    private volatile boolean dead;
    /**
     * Encoded name of the file's region, or null if no key carried the file's path. Written
     * under the monitor; volatile so that {@link #regionOf} reads it without.
     */
    private volatile String region;
    private long bytes;
    private int dataBlocks;

    Entry(String name, int id, B blocks) {
      this.name = name;
      this.id = id;
      this.blocks = blocks;
    }

    /** Whether the entry was emptied and dropped; read under its monitor. */
    public boolean isDead() {
      return dead;
    }
  }

  /**
   * The live or dead entry of {@code file}, created if absent. Lock free but for creation: a
   * plain read first, as every write of a block looks its file up twice and the file is almost
   * always known ({@code computeIfAbsent} locks the bin when the key is not its first node).
   */
  public Entry<B> open(String file) {
    Entry<B> e = byName.get(file);
    return e != null ? e : byName.computeIfAbsent(file, this::newEntry);
  }

  /** The entry of {@code file}, or null; lock free (the hit path). */
  public Entry<B> get(String file) {
    return byName.get(file);
  }

  /**
   * The entry of a registered id, or null if the id is not (or no longer) registered; O(1), lock
   * free.
   */
  @SuppressWarnings("unchecked")
  public Entry<B> get(int id) {
    if (id < 0) {
      return null;
    }
    AtomicReferenceArray<Entry<?>> table = byId;
    int mask = table.length() - 1;
    for (int i = id & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
      Entry<?> e = table.get(i);
      if (e == null) {
        return null;
      }
      if (e.id == id) {
        return (Entry<B>) e;
      }
    }
    return null;
  }

  /**
   * Counts a block just added to {@code e.blocks} ({@code bytes} long, a data block or not) and
   * sets the file's region if it had none ({@code region} may be null). Caller holds e's
   * monitor and found it live.
   */
  public void added(Entry<B> e, long bytes, boolean data, String region) {
    if (e.region == null && region != null) {
      e.region = region;
      if (e.bytes > 0) {
        addRegionBytes(region, e.bytes);
      }
    }
    e.bytes += bytes;
    e.dataBlocks += data ? 1 : 0;
    addRegionBytes(e.region, bytes);
  }

  /**
   * Counts a block just removed from {@code e.blocks} (added with {@code bytes} and
   * {@code data}); unregisters the file if that emptied it. Caller holds e's monitor and found
   * it live.
   */
  public void removed(Entry<B> e, long bytes, boolean data) {
    e.bytes -= bytes;
    e.dataBlocks -= data ? 1 : 0;
    addRegionBytes(e.region, -bytes);
    dropIfEmpty(e);
  }

  /**
   * Unregisters {@code e} if its blocks are empty (an entry {@link #open}ed for a block that was
   * then not added). Caller holds e's monitor.
   */
  public void dropIfEmpty(Entry<B> e) {
    if (!e.dead && e.blocks.size() == 0) {
      e.dead = true;
      byName.remove(e.name, e);
      unindex(e);
    }
  }

  /** Returns the id of {@code file}, or -1 if none of its blocks is registered. */
  public int idOf(String file) {
    Entry<B> e = byName.get(file);
    return e == null ? -1 : e.id;
  }

  /** Returns the name of a registered file id, or null (see {@link #get(int)}); O(1). */
  public String nameOf(int id) {
    Entry<B> e = get(id);
    return e == null ? null : e.name;
  }

  /**
   * As {@link #nameOf}: O(1), never scans (the name is kept for callers on hot paths, the L2's
   * admission filter, written when only the most recent ids were O(1)).
   */
  public String nameIfIndexed(int id) {
    return nameOf(id);
  }

  /** Number of {@code file}'s registered blocks added as data blocks. */
  public int dataBlocksOf(String file) {
    Entry<B> e = byName.get(file);
    if (e == null) {
      return 0;
    }
    synchronized (e) {
      return e.dead ? 0 : e.dataBlocks;
    }
  }

  /**
   * The region {@code file}'s blocks were added with, or null. Takes no lock: the L2's
   * checkpoint asks it while it visits the file's blocks under their table's read lock, and a
   * writer holds the entry's monitor while it waits for that table's write lock.
   */
  public String regionOf(String file) {
    Entry<B> e = byName.get(file);
    if (e == null) {
      return null;
    }
    String region = e.region;
    return e.dead ? null : region;
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
    Entry<B> e = byName.get(file);
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

  /** The live entries (weakly consistent), for walks over every file. */
  public Iterable<Entry<B>> entries() {
    return byName.values();
  }

  /** Number of files with at least one registered block. */
  public int fileCount() {
    return byName.size();
  }

  /** Total number of registered blocks (O(files)). */
  public long blockCount() {
    long n = 0;
    for (Entry<B> e : byName.values()) {
      synchronized (e) {
        n += e.blocks.size();
      }
    }
    return n;
  }

  /** Heap bytes of the entries and their blocks (O(files)); excludes the name strings. */
  public long heapBytes() {
    long n = 0;
    for (Entry<B> e : byName.values()) {
      synchronized (e) {
        n += 96 + e.blocks.heapBytes();
      }
    }
    return n;
  }

  private Entry<B> newEntry(String name) {
    int id = nextId.getAndIncrement();
    if (id < 0) {
      throw new IllegalStateException("more than 2^31 HFiles registered over this cache's life");
    }
    Entry<B> e = new Entry<>(name, id, newBlocks.apply(id));
    index(e);
    return e;
  }

  private synchronized void index(Entry<?> e) {
    AtomicReferenceArray<Entry<?>> table = byId;
    if ((idSlotsUsed + 1) * 2L > table.length()) {
      table = rebuildIdTable();
    }
    int mask = table.length() - 1;
    int i = e.id & mask;
    while (table.get(i) != null && table.get(i) != GONE) {
      i = (i + 1) & mask;
    }
    if (table.get(i) == null) {
      idSlotsUsed++;
    }
    table.set(i, e);
  }

  private synchronized void unindex(Entry<?> e) {
    AtomicReferenceArray<Entry<?>> table = byId;
    int mask = table.length() - 1;
    for (int i = e.id & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
      Entry<?> at = table.get(i);
      if (at == null) {
        return;
      }
      if (at == e) {
        table.set(i, GONE); // a tombstone: later ids of this probe chain stay reachable
        return;
      }
    }
  }

  /** A new id table of the live entries, at most 1/4 full; caller holds the monitor. */
  private AtomicReferenceArray<Entry<?>> rebuildIdTable() {
    AtomicReferenceArray<Entry<?>> old = byId;
    int live = 0;
    for (int i = 0; i < old.length(); i++) {
      Entry<?> e = old.get(i);
      if (e != null && e != GONE) {
        live++;
      }
    }
    int capacity = 64;
    while (capacity < (live + 1) * 4L) {
      capacity <<= 1;
    }
    AtomicReferenceArray<Entry<?>> table = new AtomicReferenceArray<>(capacity);
    int mask = capacity - 1;
    for (int i = 0; i < old.length(); i++) {
      Entry<?> e = old.get(i);
      if (e != null && e != GONE) {
        int j = e.id & mask;
        while (table.get(j) != null) {
          j = (j + 1) & mask;
        }
        table.set(j, e);
      }
    }
    idSlotsUsed = live;
    byId = table;
    return table;
  }
}
