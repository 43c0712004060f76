/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import io.tiercache.core.config.CacheSettings;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One file behind the {@code file}, {@code files} and {@code mmap} engines: checked and locked
 * ({@link FileGuard}), created owner-only, sized to what the engine needs (fully reserved for a
 * mapping, {@link Reservation}), read and written with positional I/O.
 *
 * <pre>
 * Invariants
 *   The file's FileGuard lock is held from open() to close(). The path is a regular file owned by
 *   this user, mode rw-------, never reached through a symbolic link (checked, then opened with
 *   NOFOLLOW_LINKS, also on every reopen). A file that already exists keeps its contents: a
 *   reserved file only if its length is right (else it is created anew), an unreserved one
 *   always, its length corrected.
 *
 * Concurrency
 *   read/write/force are thread safe (pread/pwrite). A FileChannel is closed for every thread
 *   when any thread is interrupted inside an operation on it (HBase handlers are interrupted on
 *   RPC timeouts); the operation then reopens the channel: the interrupted thread gets its
 *   ClosedByInterruptException, any other thread caught by that close retries on the new channel.
 *   The lock is on a sibling file and survives that (see FileGuard). close() is final: later
 *   operations throw IllegalStateException.
 * </pre>
 */
final class BackingFile implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(BackingFile.class);
  private static final int MAX_ATTEMPTS = 8;

  private final Path path;
  private final FileGuard.Lock lock;
  private volatile FileChannel channel;
  private volatile boolean closed;

  private BackingFile(Path path, FileGuard.Lock lock, FileChannel channel) {
    this.path = path;
    this.lock = lock;
    this.channel = channel;
  }

  /**
   * Locks {@code path}, creates it owner-only if absent, and makes it {@code size} bytes long.
   *
   * @param reserve true for a file that will be mapped: every block is allocated now
   *     ({@link Reservation}); false for positional I/O, where a file system that fills up later
   *     makes writes fail (misses), so the file grows lazily and a shortage is only logged
   * @throws io.tiercache.core.config.SettingException naming {@link Engines#KEY} if the path is
   *     refused, locked by another user, or (reserve) too large for its file system
   */
  static BackingFile open(Path path, long size, boolean reserve) throws IOException {
    FileGuard.Lock lock = null;
    FileChannel ch = null;
    try {
      lock = FileGuard.lock(path, Engines.KEY);
      if (reserve) {
        Reservation.ensure(path, size, Engines.KEY);
        ch = FileGuard.openExisting(path, Engines.KEY);
      } else {
        ch = openSparse(path, size);
      }
      return new BackingFile(path, lock, ch);
    } catch (IOException | RuntimeException e) {
      closeQuietly(ch, e);
      closeQuietly(lock, e);
      if (e instanceof IOException) {
        throw new IOException("cannot open " + path + " as " + size + " bytes: " + e, e);
      }
      throw e;
    }
  }

  private static FileChannel openSparse(Path path, long size) throws IOException {
    FileChannel ch;
    long had;
    try {
      ch = FileGuard.createNew(path);
      had = -1;
    } catch (FileAlreadyExistsException e) {
      ch = FileGuard.openExisting(path, Engines.KEY);
      had = ch.size();
    }
    try {
      if (had != size) {
        warnIfShort(path, size);
        if (had > size) {
          ch.truncate(size);
        } else {
          ch.write(ByteBuffer.allocate(1), size - 1); // sparse: blocks are allocated as written
        }
      }
      return ch;
    } catch (IOException | RuntimeException e) {
      closeQuietly(ch, e);
      throw e;
    }
  }

  private static void warnIfShort(Path path, long size) throws IOException {
    long usable = Reservation.usableSpace(path);
    if (usable < size) {
      LOG.warn("{}: {} may grow to {} bytes but its file system has {} usable; writes past "
          + "that fail and become misses, and go on failing until {} disables the L2",
          Engines.KEY, path, size, usable,
          CacheSettings.L2_ERRORS_TOLERATED_MS.key());
    }
  }

  Path path() {
    return path;
  }

  /** Reads until {@code dst} is full; {@link EOFException} if the file ends first. */
  void read(long position, ByteBuffer dst) throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      long p = at;
      int n = withChannel(ch -> ch.read(dst, p));
      if (n < 0) {
        throw new EOFException(
            path + ": end of file at byte " + at + ", " + dst.remaining() + " bytes short");
      }
      at += n;
    }
  }

  /** Writes all of {@code src}. */
  void write(long position, ByteBuffer src) throws IOException {
    long at = position;
    while (src.hasRemaining()) {
      long p = at;
      at += withChannel(ch -> ch.write(src, p));
    }
  }

  void force() throws IOException {
    withChannel(ch -> {
      ch.force(true);
      return 0;
    });
  }

  MappedByteBuffer map(long position, int size) throws IOException {
    return channel().map(FileChannel.MapMode.READ_WRITE, position, size);
  }

  /** Closes the file and releases its lock. */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      channel.close();
    } finally {
      lock.close();
    }
  }

  @FunctionalInterface
  private interface ChannelCall {
    int call(FileChannel ch) throws IOException;
  }

  private int withChannel(ChannelCall io) throws IOException {
    for (int attempt = 1; ; attempt++) {
      FileChannel ch = channel();
      try {
        return io.call(ch);
      } catch (ClosedByInterruptException e) {
        reopen(ch);
        throw e;
      } catch (ClosedChannelException e) {
        if (closed || attempt == MAX_ATTEMPTS) {
          throw e;
        }
        reopen(ch);
      }
    }
  }

  private FileChannel channel() {
    if (closed) {
      throw new IllegalStateException(path + " is closed");
    }
    return channel;
  }

  private synchronized void reopen(FileChannel failed) throws IOException {
    if (!closed && channel == failed) {
      channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
    }
  }

  private static void closeQuietly(Closeable c, Exception cause) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
  }
}
