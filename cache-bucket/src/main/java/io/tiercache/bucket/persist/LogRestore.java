/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.bucket.meta.Deserializers;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Restores the index from a {@code TCCKPT04} checkpoint and its journal ({@link LogFiles}),
 * streaming: each batch is applied as soon as its CRC holds, so blocks become hits while the
 * rest is read, and the heap holds one batch, one {@link BlockMeta}, the file names and a bit
 * per slot of the slabs the journal touched, never a record per block.
 *
 * <h2>Order: the journal first</h2>
 * The journal holds the newest blocks (those published since the last compaction), the
 * checkpoint the older ones, so the journal is applied first and the first hits come from the
 * blocks most likely to be read, within one batch of the start at any cache size. The result
 * is the one a checkpoint-then-journal replay gives, because every removal from the index
 * while the tier runs is journaled ({@code BlockStore.forget}: evictions, file evictions,
 * drains, replaced keys) before its slot is reused:
 * <ul>
 *   <li>The checkpoint's header is read and checked first (geometry, deserializer table), and
 *       the journal is used only if it names the checkpoint's length and the whole-file CRC the
 *       checkpoint claims in its last bytes.
 *   <li>Journal PUBLISH: the key's previous slot and the slot's previous block (from an earlier
 *       record) are removed first, then the slot is claimed. Journal REMOVE: the slot's block is
 *       removed if the slot still holds that key. Either marks its slot <em>decided</em>.
 *   <li>Checkpoint PUBLISH: skipped if its slot is decided (the journal removed or replaced that
 *       block later) or its key is already restored (a newer copy); otherwise claimed
 *       ({@link SlotClaims}). A slab the journal gave another class refuses the claim.
 * </ul>
 * Every block's CRC32C is checked on its first read, whichever file named it.
 *
 * <p>A checkpoint that turns out damaged (a batch or the whole-file CRC fails, or it is cut
 * short) is not used at all: everything applied, the journal's blocks too, is removed again and
 * the start is cold, as before. A journal is read up to its first torn or damaged batch; what
 * precedes it stays (its blocks were forced before their records).
 *
 * <p>Used by the restore thread alone.
 */
final class LogRestore {
  private final IndexedBlocks blocks;
  private final SlotClaims claims;
  private final BlockMeta m = new BlockMeta();
  private final Map<Integer, String[]> names = new HashMap<>(); // file id -> {name, region}
  private Map<Integer, Integer> deserializers = Map.of();
  private long journalRecords;
  private int fromJournal;
  /** Per slab, a bit per slot the journal named (null: none); see the class comment. */
  private long[][] decided;

  LogRestore(IndexedBlocks blocks) {
    this.blocks = blocks;
    this.claims = new SlotClaims(blocks);
  }

  int restored() {
    return claims.restored();
  }

  long journalRecords() {
    return journalRecords;
  }

  /** Blocks restored from the journal (before the checkpoint's). */
  int fromJournal() {
    return fromJournal;
  }

  /**
   * Restores the checkpoint at {@code path}, written for {@code geometry}, and the journal at
   * {@code journalPath} if it belongs to it: the journal first (see the class comment).
   *
   * @return why the journal was not used or stopped early, or null if it was read to its end
   *     (or there is none)
   * @throws LogFiles.Stop saying why the checkpoint cannot be used (nothing of it, nor of the
   *     journal, stays restored)
   */
  String restore(Path path, Checkpoint.Geometry geometry, Path journalPath)
      throws LogFiles.Stop {
    String[] stopped = new String[1];
    try {
      LogFiles.readCheckpoint(path, geometry, new LogFiles.CheckpointReader() {
        @Override
        public void deserializers(Map<Integer, String> saved) {
          deserializers = Deserializers.remap(saved);
        }

        @Override
        public void beforeBatches(long length, int claimedCrc) {
          stopped[0] = journal(journalPath, length, claimedCrc);
          fromJournal = claims.restored();
        }

        @Override
        public void apply(ByteBuffer records) throws LogFiles.Stop {
          applyCheckpoint(records);
        }
      });
    } catch (LogFiles.Stop e) {
      throw undo(e);
    }
    return stopped[0];
  }

  /** Removes every block restored so far: the checkpoint is not used after all. */
  private LogFiles.Stop undo(LogFiles.Stop why) {
    if (claims.restored() > 0) {
      blocks.dropAll();
    }
    return why;
  }

  /**
   * Reads the journal at {@code path} if it belongs to the checkpoint of {@code length} bytes
   * and whole-file {@code crc}; returns why it stopped early, or null if it was read to its end
   * (or there is none).
   */
  private String journal(Path path, long length, int crc) {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(path,
        StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS), 1 << 16)) {
      DataInputStream in = new DataInputStream(raw);
      byte[] head = new byte[LogFiles.JOURNAL_MAGIC.length + 12];
      in.readFully(head);
      int stored = in.readInt();
      if (LogRecords.crc(new CRC32C(), head, 0, head.length) != stored
          || !java.util.Arrays.equals(java.util.Arrays.copyOf(head,
              LogFiles.JOURNAL_MAGIC.length), LogFiles.JOURNAL_MAGIC)) {
        return "the journal's header is damaged; it is not used";
      }
      ByteBuffer b = ByteBuffer.wrap(head, LogFiles.JOURNAL_MAGIC.length, 12);
      if (b.getLong() != length || b.getInt() != crc) {
        return "the journal belongs to another checkpoint; it is not used";
      }
      new LogFiles.BatchReader(in).readAll(this::applyJournal);
      return null;
    } catch (EOFException e) {
      return "the journal's header is torn";
    } catch (IOException e) {
      return "cannot read the journal: " + e;
    } catch (LogFiles.Stop e) {
      return "the journal ends early (" + e.getMessage() + "): its later records are not used";
    }
  }

  private void applyCheckpoint(ByteBuffer records) throws LogFiles.Stop {
    while (records.hasRemaining()) {
      byte type = records.get(records.position());
      if (type == LogRecords.FILE) {
        file(records);
      } else if (type == LogRecords.PUBLISH && records.remaining() >= LogRecords.PUBLISH_SIZE) {
        if (describe(LogRecords.getPublish(records, m)) && !isDecided(m.handle)
            && !isRestored(m)) {
          claims.claim(m);
        }
      } else {
        throw new LogFiles.Stop("an unknown record type " + type + " in a checkpoint");
      }
    }
  }

  private void applyJournal(ByteBuffer records) throws LogFiles.Stop {
    while (records.hasRemaining()) {
      byte type = records.get(records.position());
      journalRecords++;
      if (type == LogRecords.FILE) {
        file(records);
      } else if (type == LogRecords.PUBLISH && records.remaining() >= LogRecords.PUBLISH_SIZE) {
        LogRecords.getPublish(records, m);
        decide(m.handle);
        if (describe(m)) {
          republish();
        }
      } else if (type == LogRecords.REMOVE && records.remaining() >= LogRecords.REMOVE_SIZE) {
        int at = records.position();
        long h = records.getLong(at + LogRecords.R_HANDLE);
        String[] file = names.get(records.getInt(at + LogRecords.R_FILE_ID));
        long blockOffset = records.getLong(at + LogRecords.R_BLOCK_OFFSET);
        records.position(at + LogRecords.REMOVE_SIZE);
        decide(h);
        if (file != null) {
          remove(file[0], blockOffset, h);
        }
      } else {
        throw new LogFiles.Stop("an unknown record type " + type + " in the journal");
      }
    }
  }

  private void file(ByteBuffer records) throws LogFiles.Stop {
    if (records.remaining() < 5) {
      throw new LogFiles.Stop("a FILE record is cut");
    }
    records.get();
    int id = records.getInt();
    String name = LogRecords.getUtf(records);
    String region = name == null ? null : LogRecords.getUtf(records);
    if (name == null || region == null) {
      throw new LogFiles.Stop("a FILE record is cut");
    }
    names.put(id, new String[] {name, region.isEmpty() ? null : region});
  }

  /** Fills in the file's name and region and this JVM's deserializer; false to skip it. */
  private boolean describe(BlockMeta r) {
    String[] file = names.get(r.fileId);
    Integer deser = deserializers.get(r.deserializer);
    if (file == null || deser == null) {
      return false;
    }
    r.file = file[0];
    r.region = file[1];
    r.deserializer = deser;
    return true;
  }

  /** A journaled publication: the key's old slot and the slot's old block go first. */
  private void republish() {
    long old = blocks.index().peek(m.file, m.blockOffset);
    if (old != Handles.NONE) {
      blocks.evictRestored(old);
    }
    if (inClass(m.handle, m.sizeClass)) {
      blocks.evictRestored(m.handle); // the slot's block, if the index holds it there
    }
    claims.claim(m);
  }

  /** Whether {@code h} is a slot of a slab now in class {@code c} (its record can be read). */
  private boolean inClass(long h, int c) {
    int slab = Handles.slab(h);
    int slot = Handles.slot(h);
    return h >= 0 && slab < blocks.slabs().slabCount() && c >= 0
        && c < blocks.slabs().classes().count() && blocks.slabs().classOf(h) == c
        && slot >= 0 && slot < blocks.slabs().classes().slotsPerSlab(c);
  }

  private void remove(String file, long blockOffset, long h) {
    if (blocks.index().peek(file, blockOffset) == h) {
      blocks.evictRestored(h);
    }
  }

  /** Marks slot {@code h} as decided by the journal (a handle out of range names no slot). */
  private void decide(long h) {
    int slab = Handles.slab(h);
    int slot = Handles.slot(h);
    if (h < 0 || slab >= blocks.slabs().slabCount() || slot < 0
        || slot >= blocks.slabs().classes().slotsPerSlab(0)) {
      return;
    }
    if (decided == null) {
      decided = new long[blocks.slabs().slabCount()][];
    }
    if (decided[slab] == null) {
      decided[slab] = new long[(blocks.slabs().classes().slotsPerSlab(0) + 63) >>> 6];
    }
    decided[slab][slot >>> 6] |= 1L << slot;
  }

  /** Whether the journal named slot {@code h} (its checkpoint record is older). */
  private boolean isDecided(long h) {
    int slab = Handles.slab(h);
    int slot = Handles.slot(h);
    return decided != null && h >= 0 && slab < decided.length && decided[slab] != null
        && slot >= 0 && (slot >>> 6) < decided[slab].length
        && (decided[slab][slot >>> 6] & (1L << slot)) != 0;
  }

  /** Whether {@code r}'s key is already restored (from the journal: a newer copy). */
  private boolean isRestored(BlockMeta r) {
    if (fromJournal == 0) {
      return false; // claim() still refuses a second copy of a key
    }
    return blocks.index().peek(r.file, r.blockOffset) != Handles.NONE;
  }
}
