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
 * rest is read (the first within milliseconds at any size) and the heap holds one batch, one
 * {@link BlockMeta} and the file names, never a record per block.
 *
 * <h2>What is applied</h2>
 * <ul>
 *   <li>Checkpoint PUBLISH: claimed as before ({@link SlotClaims}); the block's CRC32C is
 *       checked on its first read.
 *   <li>Journal PUBLISH: the key's previous slot and the slot's previous block (both from the
 *       checkpoint or an earlier record) are removed first, then the slot is claimed.
 *   <li>Journal REMOVE: the slot's block is removed if the slot still holds that key.
 * </ul>
 * A checkpoint that turns out damaged (a batch or the whole-file CRC fails, or it is cut short)
 * is not used at all: what was applied from it is removed again, and the start is cold, as with
 * the earlier formats. A journal is read up to its first torn or damaged batch; what precedes
 * it stays (its blocks were forced before their records, and each is still verified on first
 * read).
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

  /**
   * Reads the checkpoint at {@code path}, written for {@code geometry}; returns its
   * {@code {length, crc}} for the journal to match.
   *
   * @throws LogFiles.Stop saying why it cannot be used (nothing of it stays restored)
   */
  long[] checkpoint(Path path, Checkpoint.Geometry geometry) throws LogFiles.Stop {
    try {
      return LogFiles.readCheckpoint(path, geometry, new LogFiles.CheckpointReader() {
        @Override
        public void deserializers(Map<Integer, String> saved) {
          deserializers = Deserializers.remap(saved);
        }

        @Override
        public void apply(ByteBuffer records) throws LogFiles.Stop {
          applyCheckpoint(records);
        }
      });
    } catch (LogFiles.Stop e) {
      throw undo(e);
    }
  }

  /** Removes every block restored so far: the checkpoint is not used after all. */
  private LogFiles.Stop undo(LogFiles.Stop why) {
    if (claims.restored() > 0) {
      blocks.dropAll();
    }
    return why;
  }

  /**
   * Reads the journal at {@code path} if it belongs to the checkpoint {@code {length, crc}};
   * returns why it stopped early, or null if it was read to its end (or there is none).
   */
  String journal(Path path, long[] checkpoint) {
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
      if (b.getLong() != checkpoint[0] || b.getInt() != (int) checkpoint[1]) {
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
        if (describe(LogRecords.getPublish(records, m))) {
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
        if (describe(LogRecords.getPublish(records, m))) {
          republish();
        }
      } else if (type == LogRecords.REMOVE && records.remaining() >= LogRecords.REMOVE_SIZE) {
        int at = records.position();
        long h = records.getLong(at + LogRecords.R_HANDLE);
        String[] file = names.get(records.getInt(at + LogRecords.R_FILE_ID));
        long blockOffset = records.getLong(at + LogRecords.R_BLOCK_OFFSET);
        records.position(at + LogRecords.REMOVE_SIZE);
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
}
