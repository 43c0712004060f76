/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.engine.Engines;
import io.tiercache.bucket.engine.FileGuard;
import io.tiercache.bucket.engine.Reservation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Checks, creates and removes pool files, by {@link FileGuard}'s rules: never through a symbolic
 * link, only a regular file owned by this user, owner-only ({@code rw-------}). A new pool is
 * fully allocated before it is mapped ({@link Reservation}: zeros written through positional
 * writes, under a temporary name, then renamed), so a file system too small for it is refused at
 * start-up, never a SIGBUS in a store; all zeroes is a pool with no valid record. The caller
 * holds the pool's lock.
 */
final class PoolFile {
  private PoolFile() {}

  /** Creates {@code path} of {@code size} reserved zero bytes; false if it already existed. */
  static boolean create(Path path, long size) throws IOException {
    if (length(path) >= 0) {
      return false;
    }
    return Reservation.ensure(path, size, Engines.KEY);
  }

  /**
   * The file's length, or -1 if there is no such file; refuses a link, a non-regular file or
   * another user's file, and makes the file owner-only.
   */
  static long length(Path path) throws IOException {
    BasicFileAttributes attrs = FileGuard.checkExisting(path, Engines.KEY);
    return attrs == null ? -1 : attrs.size();
  }

  /** Deletes and re-creates {@code path} with {@code size} reserved zero bytes. */
  static void recreate(Path path, long size) throws IOException {
    length(path); // never delete through a link or another user's file
    Files.deleteIfExists(path);
    Reservation.ensure(path, size, Engines.KEY);
  }
}
