/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.FileGuard;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.bucket.meta.Deserializers;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.file.HFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.InvalidPathException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializerIdManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints the L2's index for a persistent engine and restores it at startup.
 *
 * <p>Taking a checkpoint: stream the index (segment by segment) into the checkpoint's temporary
 * file, force the engine's bytes to disk, then force and rename the checkpoint
 * ({@link Checkpoint.Writer}). Restoring: each checkpointed block goes through
 * {@link SlotClaims#claim}, so the first read of each block checks its CRC32C. No block is read
 * at startup.
 *
 * <p>Engines with a {@link DurableIndex} need no checkpoint: {@link #restore(String,
 * DurableIndex, IndexedBlocks)} reads their records through the same {@link SlotClaims}.
 *
 * <p>The checkpoint path is validated before the engine opens ({@link #checkPath}: its directory
 * exists and takes new files, the path is not a directory, a link or another user's file), and
 * locked from construction to {@link #close()} through the sibling {@code <path>.lock}
 * ({@link FileGuard#lock}), so two L2s never write one checkpoint.
 *
 * <p>Concurrency: {@link #checkpoint} is called by the tier's checkpoint thread and by shutdown,
 * never at once (shutdown stops the thread first); {@link #restore} runs on the restore thread
 * before the tier takes inserts.
 */
final class Persistence {
  private static final Logger LOG = LoggerFactory.getLogger(Persistence.class);
  private static final String KEY = CacheSettings.L2_PERSISTENT_PATH.key();
  /** Bytes of the reused checkpoint buffer: about 7,000 block records per write. */
  private static final int CHECKPOINT_BUFFER = 256 * 1024;

  private final String tier;
  private final Path path;
  private final Checkpoint.Geometry geometry;
  private final Engine engine;
  private final IndexedBlocks blocks;
  private final SlabAllocator slabs;
  private final BlockIndex index;
  private final HFiles<?> files;
  private final FileGuard.Lock lock;
  /** The checkpoint's write buffer, reused by every checkpoint (checkpoint thread only). */
  private final byte[] buffer = new byte[CHECKPOINT_BUFFER];
  private final FileNames names = new FileNames(); // checkpoint thread only
  private final BlockMeta record = new BlockMeta(); // checkpoint thread only
  private final Journal journal;
  private final Path journalPath;
  private final int compactPercent;
  /** Records drained from the journal for one write (checkpoint thread only). */
  private final byte[] drained = new byte[Journal.CAPACITY];
  private final CRC32C batchCrc = new CRC32C(); // checkpoint thread only
  // The checkpoint thread's state (one run at a time, see Checkpoints):
  private FileChannel journalFile; // the open journal, or null until the first checkpoint
  private long checkpointBytes = -1; // the last checkpoint's length
  private long journalBytes; // bytes appended to the open journal
  private volatile long bytesWritten; // checkpoints and journal, this run

  /**
   * Locks the checkpoint path.
   *
   * @throws SettingException naming {@code hbase.bucketcache.persistent.path} if another cache
   *     holds it
   */
  Persistence(String tier, Path path, Checkpoint.Geometry geometry, Engine engine,
      IndexedBlocks blocks, int compactPercent) {
    this.tier = tier;
    this.path = path;
    this.journalPath = LogFiles.journalPath(path);
    this.compactPercent = compactPercent;
    try {
      this.lock = FileGuard.lock(path, KEY);
    } catch (IOException e) {
      throw setting("cannot lock " + path + ": " + e, e);
    }
    this.engine = engine;
    this.blocks = blocks;
    this.slabs = blocks.slabs();
    this.index = blocks.index();
    this.files = blocks.index().files();
    this.geometry = geometry;
    this.journal = new Journal(files);
  }

  Journal journal() {
    return journal;
  }

  /** Bytes of checkpoints and journal written this run. */
  long bytesWritten() {
    return bytesWritten;
  }

  /** Length of the last checkpoint written this run, or -1. */
  long checkpointBytes() {
    return checkpointBytes;
  }

  /**
   * Validates a checkpoint path at start-up, before anything is opened: refuses a path whose
   * directory is missing or not writable, or that names a directory, a link, a non-regular file
   * or another user's file; makes an existing checkpoint owner-only.
   *
   * @throws SettingException naming {@code hbase.bucketcache.persistent.path} and what is wrong
   */
  public static void checkPath(String persistentPath) {
    Path p;
    try {
      p = Paths.get(persistentPath);
    } catch (InvalidPathException e) {
      throw setting("'" + persistentPath + "' is not a path: " + e.getMessage(), e);
    }
    try {
      FileGuard.checkWritableFile(p, KEY);
      FileGuard.checkExisting(p.resolveSibling(p.getFileName() + ".tmp"), KEY);
      FileGuard.checkExisting(LogFiles.journalPath(p), KEY);
      FileGuard.checkExisting(LogFiles.tmp(LogFiles.journalPath(p)), KEY);
    } catch (IOException e) {
      throw setting("cannot check " + p + ": " + e, e);
    }
  }

  /** Closes the journal and releases the checkpoint's lock; nothing may be written after. */
  void close() {
    closeJournal();
    try {
      lock.close();
    } catch (IOException e) {
      LOG.warn("{}: releasing the lock {} failed", tier, lock.path(), e);
    }
  }

  private static SettingException setting(String message, Throwable cause) {
    SettingException e = new SettingException(KEY, message);
    e.initCause(cause);
    return e;
  }

  /** Whether a checkpoint file is there (it may still prove unusable when read). */
  boolean exists() {
    return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
  }

  /** Restores what the checkpoint holds (a cold start if nothing usable); returns the count. */
  int restore() {
    if (isLog()) {
      return restoreLog();
    }
    long start = System.nanoTime();
    Checkpoint.Loaded loaded;
    try {
      loaded = Checkpoint.read(path, geometry);
    } catch (Checkpoint.Unusable e) {
      if (!exists()) { // the first start with this path: normal
        LOG.info("{}: cold start, no checkpoint at {} yet", tier, path);
      } else {
        LOG.warn("{}: cold start, the checkpoint cannot be used: {}", tier, e.getMessage());
      }
      return 0;
    }
    Map<Integer, Integer> deserializers = Deserializers.remap(loaded.deserializers);
    SlotClaims claims = new SlotClaims(blocks);
    for (BlockMeta e : loaded.entries) {
      Integer deser = deserializers.get(e.deserializer);
      if (deser != null) {
        e.deserializer = deser;
        claims.claim(e);
      }
    }
    LOG.info("{}: warm start, restored {} of {} blocks from {} in {} ms", tier, claims.restored(),
        loaded.entries.size(), path, (System.nanoTime() - start) / 1_000_000);
    return claims.restored();
  }

  /** Whether the checkpoint is of the journaled format (else an older one, or none). */
  private boolean isLog() {
    byte[] magic = new byte[LogFiles.CHECKPOINT_MAGIC.length];
    try (java.io.InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
      return in.readNBytes(magic, 0, magic.length) == magic.length && LogFiles.isCheckpoint(magic);
    } catch (IOException e) {
      return false; // the older reader says why
    }
  }

  /** Restores a {@code TCCKPT04} checkpoint and its journal, journal first ({@link LogRestore}). */
  private int restoreLog() {
    long start = System.nanoTime();
    LogRestore log = new LogRestore(blocks);
    String stopped;
    try {
      stopped = log.restore(path, geometry, journalPath);
    } catch (LogFiles.Stop e) {
      LOG.warn("{}: cold start, the checkpoint cannot be used: {}", tier, e.getMessage());
      return 0;
    }
    if (stopped != null) {
      LOG.warn("{}: {}", tier, stopped);
    }
    LOG.info("{}: warm start, restored {} blocks from {} ({} journal records first, {} blocks from "
        + "them, then {} from the checkpoint) in {} ms", tier, blocks.index().size(), path,
        log.journalRecords(), log.fromJournal(), log.restored() - log.fromJournal(),
        (System.nanoTime() - start) / 1_000_000);
    return log.restored();
  }

  /**
   * Restores the blocks an engine's {@link DurableIndex} holds, the same way as a checkpoint
   * ({@link SlotClaims#claim}); a record refused there (the allocator cannot claim it, or a
   * second record of one key) is invalidated by the engine. Runs before the tier takes inserts.
   */
  static int restore(String tier, DurableIndex durable, IndexedBlocks blocks) {
    long start = System.nanoTime();
    SlotClaims claims = new SlotClaims(blocks);
    int found = durable.restore(claims::claim);
    LOG.info("{}: warm start, restored {} of {} durable records in {} ms", tier,
        claims.restored(), found, (System.nanoTime() - start) / 1_000_000);
    return claims.restored();
  }

  /**
   * One persistence run: appends the journal's records since the last run (after forcing the
   * engine, so each block a record names has its bytes on disk first), or, when the journal is
   * missing, has dropped records or has grown past {@code compactPercent} of the checkpoint,
   * compacts it into a new checkpoint. Returns whether it wrote a full checkpoint. A failed
   * append makes the next run compact (the journal's tail may be torn).
   */
  boolean persist() throws IOException {
    if (journalFile == null || !journalFile.isOpen()
        || journalBytes * 100 > checkpointBytes * compactPercent) {
      checkpoint();
      return true;
    }
    int n = journal.drain(drained);
    if (n < 0) {
      checkpoint();
      return true;
    }
    if (n > 0) {
      try {
        engine.sync();
        long w = LogFiles.append(journalFile, drained, n, batchCrc);
        journalFile.force(false);
        journalBytes += w;
        bytesWritten += w;
      } catch (IOException | RuntimeException e) {
        closeJournal(); // the next run writes a checkpoint and a new journal
        throw e;
      }
    }
    return false;
  }

  /**
   * Writes a full checkpoint and a new journal; returns the number of blocks in it. The
   * journal's epoch starts first, so the records appended while the index is streamed reach the
   * new journal (applying one twice is harmless: a PUBLISH names its slot, a REMOVE its key).
   * Streams the index: each entry's record is read from the index and the slot records and put
   * straight into {@link #buffer} (written out when full, under the visited segment's read
   * lock); the heap allocated grows with the number of files, not of blocks (issue 14). The
   * engine is forced after the visit and before the checkpoint is renamed into place, so every
   * block it, or the journal's first batch, names has its bytes on disk.
   */
  int checkpoint() throws IOException {
    closeJournal();
    journal.startEpoch();
    names.clear();
    long[] written;
    long count;
    int n;
    try (LogFiles.CheckpointWriter w = LogFiles.CheckpointWriter.open(path, geometry,
        CacheableDeserializerIdManager.save(), buffer)) {
      long[] blocksSeen = new long[1];
      try {
        index.forEach((fileId, blockOffset, h) -> {
          try {
            String file = names.get(fileId);
            if (file == null) {
              file = files.nameOf(fileId);
              names.put(fileId, file == null ? FileNames.GONE : file);
              if (file != null) {
                w.file(fileId, file, files.regionOf(file));
              }
            }
            if (file == null || file == FileNames.GONE) {
              return;
            }
            BlockMeta m = slabs.read(h, record);
            m.handle = h;
            m.sizeClass = slabs.classOf(h);
            m.fileId = fileId; // as the index has it: the record is read without a pin
            m.blockOffset = blockOffset;
            m.flags &= ~BlockMeta.F_VERIFIED;
            w.publish(m);
            blocksSeen[0]++;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      count = blocksSeen[0];
      n = journal.drain(drained); // what changed while the index was streamed
      engine.sync(); // every block the checkpoint and those records name has its bytes forced
      written = w.finish();
    } finally {
      names.clear();
    }
    checkpointBytes = written[0];
    bytesWritten += written[0];
    journalFile = LogFiles.createJournal(journalPath, written[0], (int) written[1], drained,
        Math.max(n, 0));
    journalBytes = journalFile.size();
    bytesWritten += journalBytes;
    if (n < 0) {
      closeJournal(); // records were dropped during the stream: the next run starts again
    }
    return (int) count;
  }

  private void closeJournal() {
    FileChannel ch = journalFile;
    journalFile = null;
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException e) {
        LOG.warn("{}: closing the journal {} failed", tier, journalPath, e);
      }
    }
  }

  /**
   * File id to name for one checkpoint, so a block costs no lookup in the registry and no boxed
   * key: open addressing over int keys, kept between checkpoints (its size follows the number
   * of files). Used by the checkpointing thread only.
   */
  static final class FileNames {
    /** The name of a file id the registry no longer knows (its blocks are left out). */
    static final String GONE = new String("");

    private int[] keys = new int[64]; // id + 1; 0 marks an empty entry
    private String[] values = new String[64];
    private int size;

    String get(int id) {
      int mask = keys.length - 1;
      for (int i = mix(id) & mask; keys[i] != 0; i = (i + 1) & mask) {
        if (keys[i] == id + 1) {
          return values[i];
        }
      }
      return null;
    }

    void put(int id, String name) {
      if ((size + 1) * 2 > keys.length) {
        int[] oldKeys = keys;
        String[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new String[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
          if (oldKeys[i] != 0) {
            put(oldKeys[i] - 1, oldValues[i]);
          }
        }
      }
      int mask = keys.length - 1;
      int i = mix(id) & mask;
      while (keys[i] != 0 && keys[i] != id + 1) {
        i = (i + 1) & mask;
      }
      if (keys[i] == 0) {
        size++;
      }
      keys[i] = id + 1;
      values[i] = name;
    }

    void forEach(java.util.function.BiConsumer<Integer, String> action) {
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] != 0) {
          action.accept(keys[i] - 1, values[i]);
        }
      }
    }

    void clear() {
      if (size > 0) {
        Arrays.fill(keys, 0);
        Arrays.fill(values, null);
        size = 0;
      }
    }

    private static int mix(int id) {
      return id * 0x9E3779B9 >>> 7 ^ id;
    }
  }
}
