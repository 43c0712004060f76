/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.index;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.core.file.HFiles;

/**
 * The L2's index: HFile name to file ({@link HFiles}, the registry that also keeps the file's
 * id and residency), then block offset to slot in that file's {@link FileTable}. A cached block
 * costs one 32-bit table entry on the heap and no Java object; the key is kept once, in the slot
 * record ({@code alloc.Slab}), which a lookup reads to confirm a tag match and a hit pins anyway.
 * {@code evictBlocksByHfileName} walks the file's table: O(blocks of that file).
 *
 * <h2>Entry format (32 bits)</h2>
 * <pre>
 *   31              numberBits numberBits-1                 0
 *   +-------------------------+----------------------------+
 *   | tag: top bits of        |  slot number + 1 (0: empty) |
 *   |   hash(blockOffset)     |  slab &lt;&lt; slotBits | slot  |
 *   +-------------------------+----------------------------+
 * </pre>
 * {@code slotBits} is what the largest slot count per slab needs, {@code numberBits} what the
 * highest slot number + 1 needs; the tag takes the {@code 32 - numberBits} bits left (9 bits for
 * a 16 GB L2 of HBase's default sizes: 4 M slots of the smallest class; none at 2^32 slots). A tag
 * match of another key costs one more record read, never a wrong answer; the home of an entry
 * comes from the low 32 bits of the same hash, independent of the tag. An L2 whose slot numbers
 * do not fit 32 bits is refused at construction.
 *
 * <h2>Capacity</h2>
 * Tables grow and shrink with their files (see {@link FileTable}): 5.3–7.1 heap bytes per block,
 * plus about 150 bytes per file; nothing is allocated up front. A file's table is limited to
 * {@value #MAX_TABLE} entries; past that {@link #put} returns {@link #FULL} and the caller drops
 * the block.
 *
 * <h2>Concurrency</h2>
 * Lookups ({@link #pin}, {@link #peek}) take no lock but the file table's optimistic read (or
 * its read lock when a writer got in the way), and pin the slot before the table may change, so
 * no eviction can free a slot between its lookup and its pin. Mutations hold the file's entry
 * monitor (one writer per file), then the table's write lock; callers also hold the key's stripe
 * lock ({@code BlockStore}), so the lock order is: key stripe, file entry, table, allocator.
 */
public final class BlockIndex {
  /** What {@link #put} returns when the key's file table cannot grow. */
  public static final long FULL = -2;
  /** Most entries of one file's table (an {@code int[]} of 2 GB). */
  static final long MAX_TABLE = 1 << 29;

  /** What the index reads and does to slot records (the allocator's). */
  public interface Slots {
    int fileId(long handle);

    long blockOffset(long handle);

    /** Sets the record's file id (a publication whose file entry was replaced meanwhile). */
    void fileId(long handle, int fileId);

    /** Pins a live published slot; false if it is not one (or its pins are saturated). */
    boolean pin(long handle);

    void unpin(long handle);

    /** Serialized length of the block in the slot (the file's residency). */
    int length(long handle);

    /** Whether the slot holds a data block (the file's residency). */
    boolean isData(long handle);
  }

  final Slots slots;
  private final HFiles<FileTable> files = new HFiles<>(id -> new FileTable(this));
  /** Bits of the slot within its slab in a slot number. */
  private final int slotBits;
  private final int slotMask;
  /** Bits of slot number + 1 in an entry; the tag takes the rest. */
  private final int numberBits;
  private final int tagBits;

  /**
   * An index for slabs of at most {@code slotsPerSlab} slots each, {@code maxSlots} slots in all,
   * whose records {@code slots} reads.
   *
   * @throws IllegalArgumentException if the slot numbers do not fit 32 bits
   */
  public BlockIndex(long maxSlots, int slotsPerSlab, Slots slots) {
    this.slots = slots;
    if (slotsPerSlab <= 0 || maxSlots < 0) {
      throw new IllegalArgumentException("slots per slab " + slotsPerSlab + ", " + maxSlots);
    }
    this.slotBits = 32 - Integer.numberOfLeadingZeros(slotsPerSlab - 1);
    this.slotMask = (1 << slotBits) - 1;
    long slabs = (maxSlots + slotsPerSlab - 1) / slotsPerSlab;
    long highest = slabs == 0 ? 1 : (slabs << slotBits); // highest slot number + 1, rounded up
    if (highest > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(maxSlots + " slots of " + slabs + " slabs do not fit"
          + " the index's 32-bit slot numbers: lower hbase.bucketcache.size or use larger "
          + "hbase.bucketcache.bucket.sizes or tiercache.bucket.slab.size");
    }
    this.numberBits = 64 - Long.numberOfLeadingZeros(highest);
    this.tagBits = Math.max(0, 32 - numberBits);
  }

  /** The files and their residency; each file's blocks are its {@link FileTable}. */
  public HFiles<FileTable> files() {
    return files;
  }

  /** Bits of tag per entry (tests, docs). */
  public int tagBits() {
    return tagBits;
  }

  // ----- entry format -----------------------------------------------------------------------

  /** A block offset's 64-bit hash: the low 32 bits place it, the high bits are its tag. */
  static long hash(long blockOffset) {
    long h = blockOffset * 0x9E3779B97F4A7C15L;
    h ^= h >>> 31;
    h *= 0xBF58476D1CE4E5B9L;
    h ^= h >>> 29;
    h *= 0x94D049BB133111EBL;
    return h ^ (h >>> 32);
  }

  int tag(long hash) {
    return tagBits == 0 ? 0 : (int) (hash >>> (64 - tagBits));
  }

  int tagOf(int entry) {
    return tagBits == 0 ? 0 : entry >>> numberBits;
  }

  int entry(long hash, long handle) {
    long number = ((long) Handles.slab(handle) << slotBits) | Handles.slot(handle);
    long tag = tagBits == 0 ? 0 : (long) tag(hash) << numberBits;
    return (int) (tag | (number + 1));
  }

  long handleOf(int entry) {
    long number = (numberBits == 32 ? entry & 0xFFFF_FFFFL
        : entry & ((1L << numberBits) - 1)) - 1;
    return Handles.of((int) (number >>> slotBits), (int) number & slotMask);
  }

  // ----- lookups ----------------------------------------------------------------------------

  /** Looks up {@code file@blockOffset} and pins its slot; returns the handle or NONE. */
  public long pin(String file, long blockOffset) {
    HFiles.Entry<FileTable> e = files.get(file);
    return e == null ? Handles.NONE : e.blocks.pin(blockOffset);
  }

  /** The handle of {@code file@blockOffset} or NONE, nothing pinned. */
  public long peek(String file, long blockOffset) {
    HFiles.Entry<FileTable> e = files.get(file);
    return e == null ? Handles.NONE : e.blocks.peek(blockOffset);
  }

  // ----- mutations (caller holds the key's stripe lock) ---------------------------------------

  /**
   * Maps {@code file@blockOffset} to {@code handle}, whose slot record already describes the
   * key (its file id is set here if the file's entry is not the one it names), and counts the
   * block to the file's residency ({@code region} may be null). Returns the handle it replaced,
   * NONE if there was none, or {@link #FULL} (and changes nothing) if the key is new and its
   * file's table cannot grow.
   */
  public long put(String file, String region, long blockOffset, long handle) {
    while (true) {
      HFiles.Entry<FileTable> e = files.open(file);
      synchronized (e) {
        if (e.isDead()) {
          continue;
        }
        if (slots.fileId(handle) != e.id) {
          slots.fileId(handle, e.id);
        }
        long old = e.blocks.put(blockOffset, handle);
        if (old == Handles.NONE) {
          files.added(e, slots.length(handle), slots.isData(handle), region);
        } else if (old == FULL) {
          files.dropIfEmpty(e);
        } else {
          files.added(e, slots.length(handle) - slots.length(old), false, region);
        }
        return old;
      }
    }
  }

  /**
   * The id {@code file} has, registering it if needed: what a publication writes in the slot
   * record before the slot is published. An id whose entry is dropped before the block is put
   * is corrected by {@link #put}.
   */
  public int idFor(String file) {
    return files.open(file).id;
  }

  /**
   * Unregisters {@code file} if no block of it is indexed (a publication that took an id with
   * {@link #idFor} and was then refused).
   */
  public void forgetIfEmpty(String file) {
    HFiles.Entry<FileTable> e = files.get(file);
    if (e != null) {
      synchronized (e) {
        files.dropIfEmpty(e);
      }
    }
  }

  /**
   * Removes {@code file@blockOffset} if it maps to {@code expected} (or to anything when expected
   * is NONE); returns the handle removed, or NONE.
   */
  public long remove(String file, long blockOffset, long expected) {
    HFiles.Entry<FileTable> e = files.get(file);
    return e == null ? Handles.NONE : remove(e, blockOffset, expected);
  }

  /** As {@link #remove(String, long, long)}, by the file id a slot record names. */
  public long remove(int fileId, long blockOffset, long expected) {
    HFiles.Entry<FileTable> e = files.get(fileId);
    return e == null ? Handles.NONE : remove(e, blockOffset, expected);
  }

  private long remove(HFiles.Entry<FileTable> e, long blockOffset, long expected) {
    synchronized (e) {
      if (e.isDead()) {
        return Handles.NONE;
      }
      long h = e.blocks.remove(blockOffset, expected);
      if (h != Handles.NONE) {
        files.removed(e, slots.length(h), slots.isData(h));
      }
      return h;
    }
  }

  // ----- walks ------------------------------------------------------------------------------

  /** Number of blocks indexed (O(files); a snapshot under concurrent change). */
  public long size() {
    return files.blockCount();
  }

  /** Heap bytes of the file entries and their tables (O(files)). */
  public long heapBytes() {
    return files.heapBytes();
  }

  /** The block offsets indexed for {@code file} (a snapshot); empty if none. */
  public long[] blockOffsets(String file) {
    HFiles.Entry<FileTable> e = files.get(file);
    if (e == null) {
      return new long[0];
    }
    long[] out = new long[e.blocks.capacity()];
    int[] n = new int[1];
    e.blocks.forEach(h -> {
      if (n[0] < out.length) {
        out[n[0]++] = slots.blockOffset(h);
      }
    });
    return java.util.Arrays.copyOf(out, n[0]);
  }

  /** Receives index entries. */
  @FunctionalInterface
  public interface EntryVisitor {
    void visit(int fileId, long blockOffset, long handle);
  }

  /**
   * Visits every entry, one file at a time under its table's read lock, with the key its slot
   * record holds (file id as the registry has it). The visitor must not take a file entry's
   * monitor (a writer holds it while it waits for the table's write lock: a deadlock, which
   * {@code CheckpointWhilePublishingTest} catches) nor any lock a writer holds meanwhile.
   */
  public void forEach(EntryVisitor visitor) {
    for (HFiles.Entry<FileTable> e : files.entries()) {
      int id = e.id;
      e.blocks.forEach(h -> visitor.visit(id, slots.blockOffset(h), h));
    }
  }

  /**
   * Checks every entry (invariant checks): each file's table finds each entry by its record's
   * block offset, the record names the file, and each table's count is right.
   *
   * @throws IllegalStateException naming the first entry that fails
   */
  public void check() {
    for (HFiles.Entry<FileTable> e : files.entries()) {
      synchronized (e) {
        if (e.isDead()) {
          continue;
        }
        e.blocks.check(e.name);
        e.blocks.forEach(h -> {
          if (slots.fileId(h) != e.id) {
            throw new IllegalStateException("slot " + Handles.toString(h) + " in the table of "
                + e.name + " (id " + e.id + ") names file id " + slots.fileId(h));
          }
        });
      }
    }
  }

  /**
   * A weakly consistent walk over the entries that holds at most {@code batch} of them on the
   * heap: each file's table is read {@code batch} positions at a time under its read lock,
   * released between batches. An entry moved meanwhile (backward shift, a rebuilt table) may
   * be seen twice or missed; every entry present throughout the walk and not moved is seen. For
   * the web UI's block list, which must not copy the whole index.
   */
  public Cursor cursor(int batch) {
    return new Cursor(Math.max(1, batch));
  }

  /** See {@link #cursor}. Used by one thread. */
  public final class Cursor {
    private final java.util.Iterator<HFiles.Entry<FileTable>> fileIt = files.entries().iterator();
    private final long[] handles;
    private final int[] next = new int[1];
    private HFiles.Entry<FileTable> file;
    private int position = -1; // next table position to read in the file, -1: next file
    private int filled;
    private int at = -1;

    private Cursor(int batch) {
      handles = new long[batch];
    }

    /** Moves to the next entry; false when the walk is over. */
    public boolean next() {
      while (++at >= filled) {
        if (position < 0) {
          if (!fileIt.hasNext()) {
            return false;
          }
          file = fileIt.next();
          position = 0;
        }
        at = -1;
        filled = file.blocks.copy(position, handles, next);
        position = next[0];
      }
      return true;
    }

    /** The id of the file whose table held the entry. */
    public int fileId() {
      return file.id;
    }

    /** The file's name. */
    public String file() {
      return file.name;
    }

    public long handle() {
      return handles[at];
    }
  }
}
