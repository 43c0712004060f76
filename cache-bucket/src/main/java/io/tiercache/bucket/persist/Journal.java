/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.core.file.HFiles;
import java.nio.ByteBuffer;

/**
 * The journal's records not yet written: every publication and removal of the L2's index is
 * appended here as it happens ({@link #published}, {@link #removed}, called by the tier's block
 * store under the key's lock, before a removed slot may be reused), and the checkpoint thread
 * takes them out ({@link #drain}) to append them to the journal file, so the bytes persistence
 * writes follow the churn, not the cache size (issue 15).
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>Records are kept in the order they were appended, which for one slot is the order of
 *       its removal and its next publication (the removal is appended before the slot is freed).
 *   <li>Before the first record of a file id since the last {@link #startEpoch}, a FILE record
 *       names it.
 *   <li>A record that finds the buffer full is dropped and {@link #overflowed} set: the next
 *       persistence run writes a full checkpoint instead of appending (nothing is lost that was
 *       durable; the cost is one snapshot).
 * </ul>
 *
 * <h2>Memory</h2>
 * One byte array of {@value #CAPACITY} bytes (about 100,000 publications), allocated once,
 * and a bitset over file ids; an append allocates nothing (a FILE record encodes the file's name
 * once per file and epoch).
 *
 * <h2>Concurrency</h2>
 * Appends from any thread and drains from the checkpoint thread, all under this object's
 * monitor: an append copies about 33 bytes.
 */
public final class Journal {
  /** Bytes of records the journal holds between two persistence runs. */
  public static final int CAPACITY = 4 << 20;

  private final HFiles<?> files;
  private final byte[] ring = new byte[CAPACITY];
  private final ByteBuffer scratch = ByteBuffer.allocate(LogRecords.PUBLISH_SIZE
      + LogRecords.fileSize(new byte[LogRecords.MAX_NAME], new byte[LogRecords.MAX_NAME]));
  private long head; // bytes ever appended
  private long tail; // bytes ever drained
  private long[] named = new long[16]; // file ids named since the epoch began
  private boolean overflowed;

  public Journal(HFiles<?> files) {
    this.files = files;
  }

  /**
   * Appends the publication of {@code m} (handle, size class, file id and name, block offset,
   * length, checksum, flags, deserializer, type), after a FILE record if the file is new in this
   * epoch.
   */
  public synchronized void published(BlockMeta m) {
    scratch.clear();
    if (!isNamed(m.fileId)) {
      byte[] name = LogRecords.utf(m.file);
      if (name.length == 0) {
        return; // a name too long for a record: the block is cached, only not journaled
      }
      LogRecords.putFile(scratch, m.fileId, name, LogRecords.utf(files.regionOf(m.file)));
    }
    LogRecords.putPublish(scratch, m);
    if (append() && !isNamed(m.fileId)) {
      name(m.fileId);
    }
  }

  /** Appends the removal of slot {@code handle}'s block (file id, block offset) from the index. */
  public synchronized void removed(long handle, int fileId, long blockOffset) {
    scratch.clear();
    LogRecords.putRemove(scratch, handle, fileId, blockOffset);
    append();
  }

  private boolean append() {
    int n = scratch.position();
    if (head + n - tail > CAPACITY) {
      overflowed = true;
      return false;
    }
    int at = (int) (head % CAPACITY);
    int first = Math.min(n, CAPACITY - at);
    System.arraycopy(scratch.array(), 0, ring, at, first);
    System.arraycopy(scratch.array(), first, ring, 0, n - first);
    head += n;
    return true;
  }

  /**
   * Moves the records appended since the last drain into {@code out} (at least
   * {@link #CAPACITY} bytes) and returns their length; -1 if some were dropped since (the caller
   * must write a full checkpoint, then {@link #startEpoch}).
   */
  public synchronized int drain(byte[] out) {
    if (overflowed) {
      return -1;
    }
    return take(out);
  }

  private int take(byte[] out) {
    int n = (int) (head - tail);
    int at = (int) (tail % CAPACITY);
    int first = Math.min(n, CAPACITY - at);
    System.arraycopy(ring, at, out, 0, first);
    System.arraycopy(ring, 0, out, first, n - first);
    tail = head;
    return n;
  }

  /**
   * Begins an epoch, as a full checkpoint starts: the records appended so far are discarded
   * (the checkpoint's snapshot, taken after this, holds their effect), every file is to be
   * named again, and an overflow is forgotten. Records appended from now on reach the new
   * journal.
   */
  public synchronized void startEpoch() {
    tail = head;
    java.util.Arrays.fill(named, 0);
    overflowed = false;
  }

  /** Bytes appended and not drained yet. */
  public synchronized int pending() {
    return (int) (head - tail);
  }

  /** Whether records were dropped for want of room since the last epoch began. */
  public synchronized boolean overflowed() {
    return overflowed;
  }

  private boolean isNamed(int fileId) {
    int w = fileId >>> 6;
    return fileId >= 0 && w < named.length && (named[w] & (1L << fileId)) != 0;
  }

  private void name(int fileId) {
    int w = fileId >>> 6;
    if (w >= named.length) {
      named = java.util.Arrays.copyOf(named, Math.max(w + 1, named.length * 2));
    }
    named[w] |= 1L << fileId;
  }
}
