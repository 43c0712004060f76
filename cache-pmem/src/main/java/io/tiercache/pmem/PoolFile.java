/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Creates, sizes and removes pool files. A pool is created owner-only ({@code rw-------}) in the
 * system call that creates it, as the other cache files are, and is all zeroes when new (a new
 * file on DAX or tmpfs reads as zeroes), which is a pool with no valid record.
 */
final class PoolFile {
  private PoolFile() {}

  /** Creates {@code path} of {@code size} zero bytes; false if it already existed. */
  static boolean create(Path path, long size) throws IOException {
    boolean created;
    try {
      Files.createFile(path, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
      created = true;
    } catch (FileAlreadyExistsException e) {
      created = false;
    } catch (UnsupportedOperationException e) {
      created = !Files.exists(path);
      if (created) {
        Files.createFile(path);
      }
    }
    if (created) {
      try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
        file.setLength(size);
      }
    }
    return created;
  }

  /** The file's length, or -1 if there is no such file. */
  static long length(Path path) throws IOException {
    return Files.exists(path) ? Files.size(path) : -1;
  }

  /** Deletes and re-creates {@code path} with {@code size} zero bytes. */
  static void recreate(Path path, long size) throws IOException {
    Files.deleteIfExists(path);
    create(path, size);
  }
}
