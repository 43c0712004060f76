/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

/**
 * The {@code file:PATH} and {@code files:P1,P2,...} engines: positional reads and writes on one
 * or more files. Copies (not zero-copy); persistent.
 *
 * <pre>
 * Invariants
 *   The slabs are dealt out in order, as evenly as whole slabs allow: with s slabs over n files,
 *   the first s % n files hold s / n + 1 slabs and the others s / n, so a slab never straddles
 *   two files. Each file is exactly as long as its slabs; a file of another length is resized.
 *   Each file is locked for the engine's life (BackingFile). Files are sparse, not reserved:
 *   when the file system fills up, writes fail with IOException and become misses (FaultTracker).
 *
 * Concurrency
 *   Thread safe without locks; see BackingFile for interrupts. close() must not run concurrently
 *   with other operations (the L2 stops its writers and readers first).
 *
 * Memory layout
 *   engine address a lives in files[i] at a - starts[i], where starts[i] <= a < starts[i + 1].
 * </pre>
 */
final class FileEngine implements Engine {
  private final long capacity;
  private final int slabSize;
  private final BackingFile[] files;
  private final long[] starts;

  /**
   * Opens (creating owner-only, or resizing) and locks one file per path; all or none stay open.
   */
  FileEngine(List<Path> paths, long capacity, int slabSize) throws IOException {
    Slabs.checkGeometry(capacity, slabSize);
    long slabs = capacity / slabSize;
    int n = paths.size();
    if (n == 0 || n > slabs) {
      throw new IllegalArgumentException(n + " files for " + slabs + " slabs");
    }
    this.capacity = capacity;
    this.slabSize = slabSize;
    this.files = new BackingFile[n];
    this.starts = new long[n];
    long start = 0;
    try {
      for (int i = 0; i < n; i++) {
        long size = (slabs / n + (i < slabs % n ? 1 : 0)) * slabSize;
        starts[i] = start;
        files[i] = BackingFile.open(paths.get(i), size, false);
        start += size;
      }
    } catch (IOException | RuntimeException e) {
      closeQuietly(e);
      throw e;
    }
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public int slabSize() {
    return slabSize;
  }

  @Override
  public boolean isZeroCopy() {
    return false;
  }

  @Override
  public boolean isPersistent() {
    return true;
  }

  @Override
  public ByteBuffer view(long address, int length) {
    throw new UnsupportedOperationException(describe() + " copies; use read()");
  }

  @Override
  public void read(long address, ByteBuffer dst) throws IOException {
    Slabs.checkRange(address, dst.remaining(), capacity, slabSize);
    int i = fileOf(address);
    files[i].read(address - starts[i], dst);
  }

  @Override
  public void write(long address, ByteBuffer src) throws IOException {
    Slabs.checkRange(address, src.remaining(), capacity, slabSize);
    int i = fileOf(address);
    files[i].write(address - starts[i], src);
  }

  @Override
  public void sync() throws IOException {
    for (BackingFile file : files) {
      file.force();
    }
  }

  @Override
  public String describe() {
    StringJoiner spec = new StringJoiner(",", files.length == 1 ? "file:" : "files:", "");
    for (BackingFile file : files) {
      spec.add(file.path().toString());
    }
    return spec.toString();
  }

  /** Closes every file, even if one fails; the first failure is thrown. */
  @Override
  public void close() throws IOException {
    IOException first = null;
    for (BackingFile file : files) {
      try {
        if (file != null) {
          file.close();
        }
      } catch (IOException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private int fileOf(long address) {
    int i = Arrays.binarySearch(starts, address);
    return i >= 0 ? i : -i - 2;
  }

  private void closeQuietly(Exception cause) {
    try {
      close();
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
  }
}
