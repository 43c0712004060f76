/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * One file behind the {@code file}, {@code files} and {@code mmap} engines: created owner-only,
 * sized to what the engine needs, read and written with positional I/O.
 *
 * <pre>
 * Invariants
 *   The file is created with mode rw------- in the same system call that creates it (O_EXCL with
 *   the mode), so it is never group- or world-readable, even for an instant. A file that already
 *   exists keeps its contents and permissions; only its length is corrected.
 *
 * Concurrency
 *   read/write/force are thread safe (pread/pwrite). A FileChannel is closed for every thread
 *   when any thread is interrupted inside an operation on it (HBase handlers are interrupted on
 *   RPC timeouts); the operation then reopens the channel: the interrupted thread gets its
 *   ClosedByInterruptException, any other thread caught by that close retries on the new channel.
 *   close() is final: later operations throw IllegalStateException.
 * </pre>
 */
final class BackingFile implements Closeable {
  private static final int MAX_ATTEMPTS = 8;

  private final Path path;
  private volatile FileChannel channel;
  private volatile boolean closed;

  private BackingFile(Path path) throws IOException {
    this.path = path;
    this.channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }

  /** Creates {@code path} owner-only if it does not exist, sets its length to {@code size}. */
  static BackingFile open(Path path, long size) throws IOException {
    try {
      return create(path, size);
    } catch (IOException e) {
      throw new IOException("cannot open " + path + " as " + size + " bytes: " + e, e);
    }
  }

  private static BackingFile create(Path path, long size) throws IOException {
    try {
      Files.createFile(path, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      // warm restart: the contents are the cache's; a wrong length is corrected below
    } catch (UnsupportedOperationException e) {
      createIfAbsent(path); // not POSIX: the filesystem's ACLs apply
    }
    try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
      if (file.length() != size) {
        file.setLength(size);
      }
    }
    return new BackingFile(path);
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

  @Override
  public synchronized void close() throws IOException {
    closed = true;
    channel.close();
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
      channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }
  }

  private static void createIfAbsent(Path path) throws IOException {
    try {
      Files.createFile(path);
    } catch (FileAlreadyExistsException e) {
      // kept as it is, like the POSIX path
    }
  }
}
