/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.config.Sizes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a file that a mapping will cover fully allocated before it is mapped ({@code mmap:},
 * {@code pmem:}), so that no page of the mapping can be unbacked later.
 *
 * <p>Why: a store into a mapped page the file system cannot back (a sparse file on a full
 * tmpfs or disk) raises SIGBUS, which kills the JVM on a caller thread. {@code setLength} makes a
 * sparse file; writing zeros allocates every block, so a file system that is too small fails
 * here, at start-up, with an IOException (ENOSPC) instead.
 *
 * <pre>
 * Invariants
 *   A file at the final path whose length is the size asked for was reserved by this class: new
 *   files are filled under the temporary name "&lt;file&gt;.reserving" in the same directory,
 *   forced, and only then renamed to the final name. So an existing file of the right length is
 *   a warm restart and is not touched; a file of another length is deleted and reserved anew
 *   (a cold start). Files written by TierCache before this class existed may be sparse: they
 *   are kept as they are (delete them once to have them reserved).
 *
 * Concurrency
 *   The caller holds the file's FileGuard lock, so no other cache reserves, renames or maps the
 *   same path meanwhile.
 * </pre>
 */
public final class Reservation {
  private static final Logger LOG = LoggerFactory.getLogger(Reservation.class);

  /** Bytes per positional write of zeros. */
  static final int CHUNK = 1 << 20;

  private Reservation() {}

  /**
   * Makes {@code path} a fully allocated file of {@code size} bytes; the caller holds its lock.
   *
   * @param key the key that named the path (reported in errors)
   * @return true if the file was (re)created and holds zeros; false if an existing file of the
   *     right length was kept
   * @throws SettingException naming {@code key} and {@code hbase.bucketcache.size} if the file
   *     system has less usable space than the file needs
   * @throws IOException if writing fails (ENOSPC included); nothing is left behind
   */
  public static boolean ensure(Path path, long size, String key) throws IOException {
    return ensure(path, size, key, true);
  }

  /** As {@link #ensure(Path, long, String)}; tests skip the space check to reach ENOSPC. */
  static boolean ensure(Path path, long size, String key, boolean checkSpace)
      throws IOException {
    BasicFileAttributes existing = FileGuard.checkExisting(path, key);
    if (existing != null && existing.size() == size) {
      return false;
    }
    Path tmp = temporary(path);
    Files.deleteIfExists(tmp); // left by a reservation a crash interrupted
    if (existing != null) {
      // The size setting changed since the file was made: expected, so not a warning.
      LOG.info("{}: {} is {} bytes, {} are needed: a cold start, the file is created anew",
          key, path, existing.size(), size);
      Files.delete(path);
    }
    if (checkSpace) {
      checkSpace(path, size, key);
    }
    long start = System.nanoTime();
    try (FileChannel ch = FileGuard.createNew(tmp)) {
      fillWithZeros(ch, size);
      ch.force(true);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(tmp, e);
      throw new IOException("cannot reserve " + Sizes.format(size) + " for " + path + ": " + e
          + "; free space on its file system or lower " + CacheSettings.L2_SIZE.key(), e);
    }
    Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE);
    LOG.info("{}: reserved {} ({} bytes) for {} in {} ms", key, Sizes.format(size), size, path,
        (System.nanoTime() - start) / 1_000_000);
    return true;
  }

  /**
   * Refuses a file of {@code size} bytes on a file store with less usable space.
   *
   * @throws SettingException naming {@code key} and {@code hbase.bucketcache.size}
   */
  static void checkSpace(Path path, long size, String key) throws IOException {
    long usable = usableSpace(path);
    if (usable < size) {
      throw new SettingException(key, path + " needs " + Sizes.format(size) + " (" + size
          + " bytes, from " + CacheSettings.L2_SIZE.key() + ") reserved at start, but its file "
          + "system has " + Sizes.format(usable) + " (" + usable + " bytes) usable; free space, "
          + "lower " + CacheSettings.L2_SIZE.key() + " or name a larger file system");
    }
  }

  /** Usable bytes of the file store that holds (or will hold) {@code path}. */
  static long usableSpace(Path path) throws IOException {
    return Files.getFileStore(path.toAbsolutePath().getParent()).getUsableSpace();
  }

  static Path temporary(Path path) {
    return path.resolveSibling(path.getFileName() + ".reserving");
  }

  private static void fillWithZeros(FileChannel ch, long size) throws IOException {
    // direct, so the JDK does not copy each chunk into a temporary direct buffer
    ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(CHUNK, Math.max(size, 1)));
    try {
      long at = 0;
      while (at < size) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
        while (zeros.hasRemaining()) {
          at += ch.write(zeros, at);
        }
      }
    } finally {
      DirectMemory.free(zeros);
    }
  }

  private static void deleteQuietly(Path path, Exception cause) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
  }
}
