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
import io.tiercache.core.file.FileRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
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
  private final FileRegistry files;
  private final FileGuard.Lock lock;
  /** The checkpoint's write buffer, reused by every checkpoint (checkpoint thread only). */
  private final byte[] buffer = new byte[CHECKPOINT_BUFFER];
  private final FileNames names = new FileNames(); // checkpoint thread only
  private final BlockMeta record = new BlockMeta(); // checkpoint thread only

  /**
   * Locks the checkpoint path.
   *
   * @throws SettingException naming {@code hbase.bucketcache.persistent.path} if another cache
   *     holds it
   */
  Persistence(String tier, Path path, Checkpoint.Geometry geometry, Engine engine,
      IndexedBlocks blocks) {
    this.tier = tier;
    this.path = path;
    try {
      this.lock = FileGuard.lock(path, KEY);
    } catch (IOException e) {
      throw setting("cannot lock " + path + ": " + e, e);
    }
    this.engine = engine;
    this.blocks = blocks;
    this.slabs = blocks.slabs();
    this.index = blocks.index();
    this.files = blocks.files();
    this.geometry = geometry;
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
    } catch (IOException e) {
      throw setting("cannot check " + p + ": " + e, e);
    }
  }

  /** Releases the checkpoint's lock; no checkpoint may be written after. */
  void close() {
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

  /** Bytes of the checkpoint file, or -1 if there is none. */
  long fileBytes() {
    try {
      return Files.size(path);
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * Takes a checkpoint; returns the number of blocks in it. Streams the index: each entry's
   * record is read from the index and the slot records and put straight into {@link #buffer}
   * (written out when full, under the visited segment's read lock, so an insert into that
   * segment may wait for one buffer write to the page cache); the only heap allocated grows with
   * the number of files, not of blocks (issue 14). The engine is forced after the index is
   * visited and before the checkpoint is renamed into place, so every block it names has its
   * bytes on disk, as when the index was snapshotted first.
   */
  int checkpoint() throws IOException {
    names.clear();
    try (Checkpoint.Writer w = Checkpoint.Writer.open(path, geometry,
        CacheableDeserializerIdManager.save(), buffer)) {
      try {
        index.forEach((fileId, blockOffset, h) -> {
          String file = names.get(fileId);
          if (file == null) {
            file = files.nameOf(fileId);
            names.put(fileId, file == null ? FileNames.GONE : file);
          }
          if (file == null || file == FileNames.GONE) {
            return;
          }
          try {
            BlockMeta m = slabs.read(h, record);
            m.fileId = fileId; // as the index has it: the record is read without a pin
            m.blockOffset = blockOffset;
            m.flags &= ~BlockMeta.F_VERIFIED;
            m.cachedAt = 0;
            w.block(m);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      Map<Integer, String> named = new HashMap<>();
      Map<Integer, String> regions = new HashMap<>();
      names.forEach((fileId, file) -> {
        if (file != FileNames.GONE) {
          named.put(fileId, file);
          String region = files.regionOf(file);
          if (region != null) {
            regions.put(fileId, region);
          }
        }
      });
      engine.sync(); // after the visit: every block it named has its bytes forced
      w.finish(named, regions);
      return (int) w.blocks();
    } finally {
      names.clear();
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
