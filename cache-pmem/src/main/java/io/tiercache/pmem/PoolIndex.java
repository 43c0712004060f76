/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.bucket.meta.BlockRecord;
import io.tiercache.bucket.meta.Deserializers;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.zip.CRC32C;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializerIdManager;

/**
 * The L2's index and slab map kept in the pool beside the blocks ({@link DurableIndex}), so a
 * restarted RegionServer serves hits after reading only the records, never the blocks.
 *
 * <h2>Memory layout of a block record (128 bytes, 128-aligned, native byte order)</h2>
 * <pre>
 *   0        8                                           28   30  31  32                 128
 *   +--------+-------------------------------------------+----+---+---+------------------+
 *   |  seal  |  BlockRecord (20 B; its own byte: class)  |nLen|rLn| 0 | name, then region|
 *   +--------+-------------------------------------------+----+---+---+------------------+
 *
 *   offset size field
 *     0     8   seal         0: no block. Else RECORD_TAG (high 32 bits) | CRC32C of bytes
 *                            8..127 (low 32 bits), written last by one 8-byte store
 *     8     8   blockOffset  where the block starts in its HFile         (BlockRecord)
 *    16     4   length       serialized length                            (BlockRecord)
 *    20     4   checksum     CRC32C of the block's bytes (verified on the first read after
 *                            restore)                                     (BlockRecord)
 *    24     1   class        size class; must equal the slab map's class for the slab
 *                            (BlockRecord.OWN)
 *    25     1   flags        BlockMeta.F_* without F_VERIFIED            (BlockRecord)
 *    26     1   deser        index into the deserializer name table below (BlockRecord)
 *    27     1   type         BlockType ordinal                            (BlockRecord)
 *    28     2   nameLen      bytes of the HFile name (UTF-8), at most 96
 *    30     1   regionLen    bytes of the file's region (encoded name, UTF-8) after the name;
 *                            0 if unknown or if name and region together pass 96 bytes
 *    31     1   (zero)
 *    32    96   name         HFile name; longer names are not made durable; then the region
 * </pre>
 * Records written before the region was kept have 0 at byte 30 and are read without a region.
 * Record {@code slab × recordsPerSlab + slot} belongs to slot {@code (slab, slot)}
 * ({@link PoolLayout}). A deserializer name entry is 128 bytes: seal (NAME_TAG | CRC32C of bytes
 * 8..127), name length (2 bytes), name (UTF-8, at most 118). Entries are appended, never changed:
 * records keep naming the same class whatever ids HBase hands out in the next JVM.
 *
 * <h2>Crash consistency (the protocol)</h2>
 * <ol>
 *   <li>Publish: (a) the block's bytes, already stored by the engine, are flushed; (b) if the slab
 *       map does not yet say this slab's class, it is stored and flushed; (c) the deserializer's
 *       name entry exists (else it is appended and flushed); (d) record bytes 8..127 are stored
 *       and flushed, with the seal still 0; (e) the seal is stored by one aligned 8-byte store and
 *       flushed. Only then does the block enter the L2's index.</li>
 *   <li>Remove: when a block leaves the L2's index its seal is set to 0 and flushed, before the
 *       allocator may free and reuse the slot.</li>
 *   <li>Slab class: a slab changes class only when all its slots are free, hence all its seals
 *       are 0; so a sealed record's class always equals the slab map's class.</li>
 * </ol>
 * A crash between any two steps leaves each record either unsealed (ignored) or sealed over a
 * slot holding exactly the bytes it describes. The seal's CRC catches a damaged record (it is
 * dropped and unsealed); the block's CRC32C, verified on its first read after a restart, catches
 * damaged bytes (the L2 drops the block and calls {@link #remove}).
 *
 * <h2>Concurrency</h2>
 * The L2 never publishes or removes one slot from two threads at once. {@code slabClass} caches
 * the slab map: concurrent publishers to one slab store the same class, so a race only repeats a
 * flush. Name entries are appended under {@code this}. {@link #restore} runs alone, at startup.
 */
final class PoolIndex implements DurableIndex {
  static final long RECORD_TAG = 0x54435231L; // "TCR1"
  static final long NAME_TAG = 0x5443444EL; // "TCDN"
  static final int R_SEAL = 0;
  /** Where the shared {@link BlockRecord} starts (bytes 8..27). */
  static final int R_BLOCK = 8;
  static final int R_BLOCK_OFFSET = R_BLOCK + BlockRecord.BLOCK_OFFSET;
  static final int R_CLASS = R_BLOCK + BlockRecord.OWN;
  static final int R_FLAGS = R_BLOCK + BlockRecord.FLAGS;
  static final int R_DESER = R_BLOCK + BlockRecord.DESERIALIZER;
  static final int R_NAME_LENGTH = R_BLOCK + BlockRecord.SIZE;
  static final int R_REGION_LENGTH = 30;
  static final int R_NAME = 32;
  static final int NAME_MAX = PoolLayout.RECORD - R_NAME;
  private static final byte[] NO_REGION = new byte[0];
  static final int N_LENGTH = 8;
  static final int N_NAME = 10;
  static final int N_NAME_MAX = PoolLayout.NAME_ENTRY - N_NAME;

  private final PmemRegion region;
  private final PoolLayout layout;
  private final AtomicIntegerArray slabClass;
  private final String[] names = new String[PoolLayout.NAME_ENTRIES]; // guarded by this
  private final Map<Integer, Integer> entryOfId = new ConcurrentHashMap<>();
  private final LongAdder notDurable = new LongAdder();
  private final ThreadLocal<ByteBuffer> image = ThreadLocal.withInitial(
      () -> ByteBuffer.allocate(PoolLayout.RECORD).order(ByteOrder.nativeOrder()));

  PoolIndex(PmemRegion region, PoolLayout layout) {
    this.region = region;
    this.layout = layout;
    this.slabClass = new AtomicIntegerArray(layout.slabCount);
    for (int s = 0; s < layout.slabCount; s++) {
      slabClass.set(s, region.getInt(layout.slabMapEntry(s)) - 1);
    }
    byte[] entry = new byte[PoolLayout.NAME_ENTRY];
    for (int i = 0; i < names.length; i++) {
      region.get(layout.nameEntry(i), entry);
      names[i] = sealed(entry, NAME_TAG) ? nameOf(entry) : null;
    }
  }

  /**
   * Formats the pool: unseals everything, then writes the header with its magic last. A crash
   * midway leaves no magic, so the next open formats again.
   */
  static void format(PmemRegion r, PoolLayout layout, boolean zero) {
    r.putLong(PoolLayout.H_MAGIC, 0);
    r.flush(PoolLayout.H_MAGIC, 8);
    if (zero) {
      r.zero(layout.slabMapBase, layout.dataBase - layout.slabMapBase);
      r.flush(layout.slabMapBase, layout.dataBase - layout.slabMapBase);
    }
    layout.writeHeaderFields(r);
    r.flush(0, PoolLayout.HEADER_SIZE);
    r.putLong(PoolLayout.H_MAGIC, PoolLayout.MAGIC);
    r.flush(PoolLayout.H_MAGIC, 8);
  }

  @Override
  public boolean publish(BlockMeta m) {
    int slab = Handles.slab(m.handle);
    int slot = Handles.slot(m.handle);
    int sizeClass = m.sizeClass;
    byte[] name = m.file.getBytes(StandardCharsets.UTF_8);
    byte[] regionBytes = m.region == null ? NO_REGION
        : m.region.getBytes(StandardCharsets.UTF_8);
    if (name.length + regionBytes.length > NAME_MAX) {
      regionBytes = NO_REGION; // the block is still durable; its region is learnt later
    }
    int entry = name.length <= NAME_MAX ? nameEntryOf(m.deserializer) : -1;
    if (entry < 0) {
      notDurable.increment();
      return false;
    }
    long rec = layout.record(slab, slot);
    if (region.getLong(rec + R_SEAL) != 0) { // never by the protocol; keep step (d) safe anyway
      unseal(rec);
    }
    region.flush(layout.slotData(slab, slot, sizeClass), m.length); // (a)
    if (slabClass.get(slab) != sizeClass) { // (b)
      region.putInt(layout.slabMapEntry(slab), sizeClass + 1);
      region.flush(layout.slabMapEntry(slab), 4);
      slabClass.set(slab, sizeClass);
    }
    ByteBuffer img = image.get();
    img.clear();
    img.putLong(R_SEAL, 0);
    BlockRecord.put(img, R_BLOCK, m);
    // A record that outlives the JVM is never verified, and names its deserializer by entry.
    img.put(R_FLAGS, (byte) (m.flags & ~BlockMeta.F_VERIFIED)).put(R_DESER, (byte) entry)
        .put(R_CLASS, (byte) sizeClass).putShort(R_NAME_LENGTH, (short) name.length)
        .put(R_REGION_LENGTH, (byte) regionBytes.length).put(R_REGION_LENGTH + 1, (byte) 0);
    byte[] raw = img.array();
    System.arraycopy(name, 0, raw, R_NAME, name.length);
    System.arraycopy(regionBytes, 0, raw, R_NAME + name.length, regionBytes.length);
    java.util.Arrays.fill(raw, R_NAME + name.length + regionBytes.length, PoolLayout.RECORD,
        (byte) 0);
    region.put(rec + R_BLOCK, raw, R_BLOCK, PoolLayout.RECORD - R_BLOCK); // (d)
    region.flush(rec, PoolLayout.RECORD);
    region.putLong(rec + R_SEAL, seal(RECORD_TAG, raw)); // (e)
    region.flush(rec + R_SEAL, 8);
    return true;
  }

  @Override
  public void remove(long handle) {
    long rec = layout.record(Handles.slab(handle), Handles.slot(handle));
    if (region.getLong(rec + R_SEAL) != 0) {
      unseal(rec);
    }
  }

  private void unseal(long rec) {
    region.putLong(rec + R_SEAL, 0);
    region.flush(rec + R_SEAL, 8);
  }

  @Override
  public int restore(Predicate<BlockMeta> claim) {
    Map<Integer, Integer> idOfEntry = currentIds();
    byte[] raw = new byte[PoolLayout.RECORD];
    ByteBuffer rec = ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder());
    int found = 0;
    for (int slab = 0; slab < layout.slabCount; slab++) {
      int cls = slabClass.get(slab);
      for (int slot = 0; slot < layout.recordsPerSlab; slot++) {
        long at = layout.record(slab, slot);
        if (region.getLong(at + R_SEAL) == 0) {
          continue;
        }
        region.get(at, raw);
        if (!sealed(raw, RECORD_TAG)) {
          unseal(at); // damaged record: dropped
          continue;
        }
        found++;
        BlockMeta e = parse(rec, raw, slab, slot, idOfEntry);
        boolean fits = e != null && cls >= 0 && cls < layout.slotSizes.length
            && e.sizeClass == cls && slot < layout.slots(cls)
            && e.length > 0 && e.length <= layout.slotSizes[cls];
        if (!fits || !claim.test(e)) {
          unseal(at);
        }
      }
    }
    return found;
  }

  private static BlockMeta parse(ByteBuffer rec, byte[] raw, int slab, int slot,
      Map<Integer, Integer> idOfEntry) {
    int nameLength = rec.getShort(R_NAME_LENGTH);
    Integer id = idOfEntry.get(rec.get(R_DESER) & 0xff);
    if (nameLength <= 0 || nameLength > NAME_MAX || id == null) {
      return null;
    }
    BlockMeta e = BlockRecord.get(rec, R_BLOCK, new BlockMeta());
    e.handle = Handles.of(slab, slot);
    e.sizeClass = rec.get(R_CLASS) & 0xff;
    e.file = new String(raw, R_NAME, nameLength, StandardCharsets.UTF_8);
    int regionLength = rec.get(R_REGION_LENGTH) & 0xff;
    if (regionLength > 0 && nameLength + regionLength <= NAME_MAX) {
      e.region = new String(raw, R_NAME + nameLength, regionLength, StandardCharsets.UTF_8);
    }
    e.deserializer = id;
    return e;
  }

  /** Name-table entry index to this JVM's deserializer id, for the names this JVM knows. */
  private Map<Integer, Integer> currentIds() {
    Map<String, Integer> idOfName = Deserializers.idsByName();
    Map<Integer, Integer> out = new HashMap<>();
    synchronized (this) {
      for (int i = 0; i < names.length; i++) {
        Integer id = names[i] == null ? null : idOfName.get(names[i]);
        if (id != null) {
          out.put(i, id);
          entryOfId.put(id, i);
        }
      }
    }
    return out;
  }

  /** The name-table entry of deserializer {@code id}, appended if new; -1 if the table is full. */
  private int nameEntryOf(int id) {
    Integer known = entryOfId.get(id);
    return known != null ? known : appendName(id);
  }

  private synchronized int appendName(int id) {
    String name = CacheableDeserializerIdManager.save().get(id);
    if (name == null) {
      return -1;
    }
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    int free = -1;
    for (int i = 0; i < names.length; i++) {
      if (name.equals(names[i])) {
        entryOfId.put(id, i);
        return i;
      }
      if (names[i] == null && free < 0) {
        free = i;
      }
    }
    if (free < 0 || bytes.length > N_NAME_MAX) {
      return -1;
    }
    byte[] raw = new byte[PoolLayout.NAME_ENTRY];
    ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder()).putShort(N_LENGTH, (short) bytes.length);
    System.arraycopy(bytes, 0, raw, N_NAME, bytes.length);
    long at = layout.nameEntry(free);
    region.put(at + N_LENGTH, raw, N_LENGTH, raw.length - N_LENGTH);
    region.flush(at, raw.length);
    region.putLong(at, seal(NAME_TAG, raw));
    region.flush(at, 8);
    names[free] = name;
    entryOfId.put(id, free);
    return free;
  }

  private static String nameOf(byte[] entry) {
    int n = ByteBuffer.wrap(entry).order(ByteOrder.nativeOrder()).getShort(N_LENGTH);
    return n > 0 && n <= N_NAME_MAX ? new String(entry, N_NAME, n, StandardCharsets.UTF_8) : null;
  }

  private static long seal(long tag, byte[] raw) {
    CRC32C crc = new CRC32C();
    crc.update(raw, 8, raw.length - 8);
    return tag << 32 | crc.getValue();
  }

  /** Whether {@code raw} (a record or name entry, seal first) carries a valid seal of {@code tag}. */
  private static boolean sealed(byte[] raw, long tag) {
    long seal = ByteBuffer.wrap(raw).order(ByteOrder.nativeOrder()).getLong(0);
    return seal != 0 && seal == seal(tag, raw);
  }

  /** Blocks not made durable (name too long, deserializer table full). */
  long notDurable() {
    return notDurable.sum();
  }
}
