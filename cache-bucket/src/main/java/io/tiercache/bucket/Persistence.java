/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.FileGuard;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.bucket.persist.Checkpoint;
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
import java.util.function.LongConsumer;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializerIdManager;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints the L2's index for a persistent engine and restores it at startup.
 *
 * <p>Taking a checkpoint: stream the index (segment by segment) into the checkpoint's temporary
 * file, force the engine's bytes to disk, then force and rename the checkpoint
 * ({@link Checkpoint.Writer}). Restoring: claim each
 * checkpointed slot in the allocator, fill its record with the verified flag cleared, and
 * publish it, so the first read of each block checks its CRC32C. No block is read at startup.
 *
 * <p>Engines with a {@link DurableIndex} need no checkpoint: {@link #restore(String,
 * DurableIndex, SlabAllocator, BlockIndex, FileRegistry, LongConsumer)} reads their records.
 *
 * <p>The checkpoint path is validated before the engine opens ({@link #checkPath}: its directory
 * exists and takes new files, the path is not a directory, a link or another user's file), and
 * locked from construction to {@link #close()} through the sibling {@code <path>.lock}
 * ({@link FileGuard#lock}), so two L2s never write one checkpoint.
 *
 * <p>Concurrency: {@link #checkpoint} is called by the tier's checkpoint thread and by shutdown,
 * never at once (shutdown stops the thread first); {@link #restore} runs in the constructor
 * before the tier is visible to other threads.
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
  private final SlabAllocator slabs;
  private final BlockIndex index;
  private final FileRegistry files;
  private final FileGuard.Lock lock;
  /** The checkpoint's write buffer, reused by every checkpoint (checkpoint thread only). */
  private final byte[] buffer = new byte[CHECKPOINT_BUFFER];
  private final FileNames names = new FileNames(); // checkpoint thread only

  /**
   * Locks the checkpoint path.
   *
   * @throws SettingException naming {@code hbase.bucketcache.persistent.path} if another cache
   *     holds it
   */
  Persistence(String tier, BucketConfig config, Engine engine, SlabAllocator slabs,
      BlockIndex index, FileRegistry files) {
    this.tier = tier;
    this.path = Paths.get(config.persistentPath);
    try {
      this.lock = FileGuard.lock(path, KEY);
    } catch (IOException e) {
      throw setting("cannot lock " + path + ": " + e, e);
    }
    this.engine = engine;
    this.slabs = slabs;
    this.index = index;
    this.files = files;
    int[] sizes = new int[config.classes.count()];
    for (int c = 0; c < sizes.length; c++) {
      sizes[c] = config.classes.size(c);
    }
    this.geometry = new Checkpoint.Geometry(engine.describe(), config.capacity,
        config.slabSize, sizes);
  }

  /**
   * Validates a checkpoint path at start-up, before anything is opened: refuses a path whose
   * directory is missing or not writable, or that names a directory, a link, a non-regular file
   * or another user's file; makes an existing checkpoint owner-only.
   *
   * @throws SettingException naming {@code hbase.bucketcache.persistent.path} and what is wrong
   */
  static void checkPath(String persistentPath) {
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

  /** Restores what the checkpoint holds; {@code published} accounts each restored slot. */
  /** Whether a checkpoint file is there (it may still prove unusable when read). */
  boolean exists() {
    return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
  }

  int restore(LongConsumer published) {
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
    Map<Integer, Integer> deserializers = remapDeserializers(loaded.deserializers);
    int restored = 0;
    for (Checkpoint.Entry e : loaded.entries) {
      Integer deser = deserializers.get(e.deserializer);
      long h = Handles.of(e.slab, e.slot);
      if (deser == null || !fits(slabs, e.sizeClass, e.length)
          || !slabs.restore(h, e.sizeClass)) {
        continue;
      }
      boolean data = (e.flags & SlabAllocator.F_DATA) != 0;
      int fileId = files.add(e.file, e.offset, e.length, data, e.region);
      slabs.describe(h, fileId, e.offset, e.length, e.checksum,
          e.flags & ~SlabAllocator.F_VERIFIED, deser, e.type, 0);
      long old = index.put(fileId, e.offset, h);
      if (old == BlockIndex.FULL) {
        files.remove(e.file, e.offset, e.length, data);
        slabs.free(h);
        continue;
      }
      if (old != Handles.NONE) {
        index.put(fileId, e.offset, old);
        slabs.free(h);
        continue;
      }
      published.accept(h);
      restored++;
    }
    LOG.info("{}: warm start, restored {} of {} blocks from {} in {} ms", tier, restored,
        loaded.entries.size(), path, (System.nanoTime() - start) / 1_000_000);
    return restored;
  }

  /**
   * Restores the blocks an engine's {@link DurableIndex} holds, the same way as a checkpoint:
   * each claimed slot is described with the verified flag cleared, so its first read checks the
   * CRC32C. A record the allocator cannot claim, or a second record of one key, is refused (the
   * engine invalidates it). Runs before the tier is visible to other threads.
   */
  static int restore(String tier, DurableIndex durable, SlabAllocator slabs, BlockIndex index,
      FileRegistry files, LongConsumer published) {
    long start = System.nanoTime();
    int[] restored = new int[1];
    int found = durable.restore(e -> {
      long h = Handles.of(e.slab, e.slot);
      if (!fits(slabs, e.sizeClass, e.length) || !slabs.restore(h, e.sizeClass)) {
        return false;
      }
      boolean data = (e.flags & SlabAllocator.F_DATA) != 0;
      int fileId = files.add(e.file, e.offset, e.length, data, e.region);
      slabs.describe(h, fileId, e.offset, e.length, e.checksum,
          e.flags & ~SlabAllocator.F_VERIFIED, e.deserializer, e.type, 0);
      long old = index.put(fileId, e.offset, h);
      if (old == BlockIndex.FULL) {
        files.remove(e.file, e.offset, e.length, data);
        slabs.free(h);
        return false;
      }
      if (old != Handles.NONE) {
        index.put(fileId, e.offset, old);
        slabs.free(h);
        return false;
      }
      published.accept(h);
      restored[0]++;
      return true;
    });
    LOG.info("{}: warm start, restored {} of {} durable records in {} ms", tier, restored[0],
        found, (System.nanoTime() - start) / 1_000_000);
    return restored[0];
  }

  /** Whether a restored entry's class exists and its length fits a slot of that class. */
  private static boolean fits(SlabAllocator slabs, int sizeClass, int length) {
    return sizeClass >= 0 && sizeClass < slabs.classes().count() && length > 0
        && length <= slabs.classes().size(sizeClass);
  }

  private static Map<Integer, Integer> remapDeserializers(Map<Integer, String> saved) {
    // Make sure HBase's block deserializer has registered its id in this JVM.
    HFileBlock.BLOCK_DESERIALIZER.getDeserializerIdentifier();
    Map<String, Integer> now = new HashMap<>();
    for (Map.Entry<Integer, String> e : CacheableDeserializerIdManager.save().entrySet()) {
      now.put(e.getValue(), e.getKey());
    }
    Map<Integer, Integer> out = new HashMap<>();
    for (Map.Entry<Integer, String> e : saved.entrySet()) {
      Integer id = now.get(e.getValue());
      if (id != null) {
        out.put(e.getKey(), id);
      }
    }
    return out;
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
        index.forEach((fileId, offset, h) -> {
          String file = names.get(fileId);
          if (file == null) {
            file = files.nameOf(fileId);
            names.put(fileId, file == null ? FileNames.GONE : file);
          }
          if (file == null || file == FileNames.GONE) {
            return;
          }
          try {
            w.block(fileId, offset, Handles.slab(h), Handles.slot(h), slabs.classOf(h),
                slabs.length(h), slabs.checksum(h), slabs.flags(h) & ~SlabAllocator.F_VERIFIED,
                slabs.deserializer(h), slabs.type(h), slabs.freq(h), 0);
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
