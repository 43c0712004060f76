/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.engine.FileGuard;
import io.tiercache.bucket.meta.BlockMeta;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;

/**
 * The two files of the L2's index log: the checkpoint ({@code TCCKPT04}: a snapshot of the
 * index) and the journal beside it ({@code PATH.journal}, {@code TCJRNL01}: the publications and
 * removals since that snapshot). Records and batches: {@link LogRecords}.
 *
 * <h2>Checkpoint (big-endian)</h2>
 * <pre>
 *   magic "TCCKPT04", engine UTF, capacity long, slabSize int, classes int + sizes int...,
 *   deserializers int n + n x (id int, class name UTF), header crc int (CRC32C of the above)
 *   batches of FILE and PUBLISH records, then int 0
 *   crc int: CRC32C of every byte above
 * </pre>
 * Written to {@code PATH.tmp}, forced, renamed over {@code PATH}: a crash leaves the old one or
 * the new one. A reader applies each batch once its CRC holds and checks the whole-file CRC at
 * the end; a checkpoint that fails it is not used at all (the restore undoes what it applied).
 *
 * <h2>Journal</h2>
 * <pre>
 *   magic "TCJRNL01", checkpoint length long, checkpoint crc int, header crc int
 *   batches of FILE, PUBLISH and REMOVE records, appended until the next checkpoint
 * </pre>
 * It belongs to the checkpoint whose length and final CRC it names, and is ignored beside any
 * other. A batch is appended only after the engine was forced, so every block a journaled
 * PUBLISH names had its bytes on disk first. A reader applies batches in order and stops at the
 * first that is torn (a crash while appending) or fails its CRC.
 *
 * <p>One thread uses a writer; readers are used by the restore thread.
 */
final class LogFiles {
  static final byte[] CHECKPOINT_MAGIC = "TCCKPT04".getBytes(StandardCharsets.US_ASCII);
  static final byte[] JOURNAL_MAGIC = "TCJRNL01".getBytes(StandardCharsets.US_ASCII);

  private LogFiles() {}

  static Path journalPath(Path checkpoint) {
    return checkpoint.resolveSibling(checkpoint.getFileName() + ".journal");
  }

  static Path tmp(Path p) {
    return p.resolveSibling(p.getFileName() + ".tmp");
  }

  /** Writes {@code bytes} fully at the channel's position. */
  static void writeFully(FileChannel ch, ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      ch.write(bytes);
    }
  }

  /**
   * Streams one checkpoint into {@code PATH.tmp} through the caller's buffer: records go into
   * the open batch, which is closed and written out when the buffer is full. No allocation per
   * record.
   */
  static final class CheckpointWriter implements java.io.Closeable {
    private final Path path;
    private final Path tmp;
    private final FileChannel ch;
    private final ByteBuffer buf;
    private final CRC32C whole = new CRC32C();
    private final CRC32C batch = new CRC32C();
    private int batchAt = -1; // where the open batch's header is in buf, or -1
    private long bytes;
    private boolean finished;

    private CheckpointWriter(Path path, Path tmp, FileChannel ch, byte[] buffer) {
      this.path = path;
      this.tmp = tmp;
      this.ch = ch;
      this.buf = ByteBuffer.wrap(buffer);
    }

    static CheckpointWriter open(Path path, Checkpoint.Geometry g,
        Map<Integer, String> deserializers, byte[] buffer) throws IOException {
      Path tmp = tmp(path);
      Files.deleteIfExists(tmp); // a link there is removed, never followed
      CheckpointWriter w = new CheckpointWriter(path, tmp, FileGuard.createNew(tmp), buffer);
      try {
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(header);
        out.write(CHECKPOINT_MAGIC);
        out.writeUTF(g.engine);
        out.writeLong(g.capacity);
        out.writeInt(g.slabSize);
        out.writeInt(g.classSizes.length);
        for (int s : g.classSizes) {
          out.writeInt(s);
        }
        out.writeInt(deserializers.size());
        for (Map.Entry<Integer, String> e : deserializers.entrySet()) {
          out.writeInt(e.getKey());
          out.writeUTF(e.getValue());
        }
        byte[] h = header.toByteArray();
        w.writeRaw(ByteBuffer.wrap(h));
        w.writeRaw(ByteBuffer.allocate(4).putInt(0, LogRecords.crc(w.batch, h, 0, h.length)));
      } catch (IOException | RuntimeException e) {
        w.close();
        throw e;
      }
      return w;
    }

    /** Room for {@code n} more record bytes in the open batch (a new batch if needed). */
    private void room(int n) throws IOException {
      if (batchAt >= 0 && buf.remaining() >= n) {
        return;
      }
      flushBatch();
      if (buf.remaining() < LogRecords.BATCH_HEADER + n) {
        writeBuffer();
      }
      batchAt = buf.position();
      buf.position(batchAt + LogRecords.BATCH_HEADER);
    }

    void file(int fileId, String name, String region) throws IOException {
      byte[] n = LogRecords.utf(name);
      byte[] r = LogRecords.utf(region);
      room(LogRecords.fileSize(n, r));
      LogRecords.putFile(buf, fileId, n, r);
    }

    void publish(BlockMeta m) throws IOException {
      room(LogRecords.PUBLISH_SIZE);
      LogRecords.putPublish(buf, m);
    }

    /** Closes the open batch: its length and CRC go into its header. */
    private void flushBatch() {
      if (batchAt < 0) {
        return;
      }
      int start = batchAt + LogRecords.BATCH_HEADER;
      int n = buf.position() - start;
      if (n == 0) {
        buf.position(batchAt); // an empty batch is not written
      } else {
        buf.putInt(batchAt, n);
        buf.putInt(batchAt + 4, LogRecords.crc(batch, buf.array(), start, n));
      }
      batchAt = -1;
    }

    private void writeBuffer() throws IOException {
      buf.flip();
      writeRaw(buf);
      buf.clear();
    }

    private void writeRaw(ByteBuffer b) throws IOException {
      whole.update(b.array(), b.arrayOffset() + b.position(), b.remaining());
      bytes += b.remaining();
      writeFully(ch, b);
    }

    /**
     * Ends the batches, writes the CRC, forces the file and renames it over the checkpoint.
     * Returns {@code {length, crc}} of the checkpoint, which its journal names.
     */
    long[] finish() throws IOException {
      flushBatch();
      writeBuffer();
      writeRaw(ByteBuffer.allocate(4));
      int crc = (int) whole.getValue();
      writeFully(ch, ByteBuffer.allocate(4).putInt(0, crc));
      bytes += 4;
      ch.force(true);
      ch.close();
      Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      finished = true;
      return new long[] {bytes, crc};
    }

    /** Deletes the temporary file unless {@link #finish} succeeded. */
    @Override
    public void close() throws IOException {
      if (finished) {
        return;
      }
      try {
        ch.close();
      } finally {
        Files.deleteIfExists(tmp);
      }
    }
  }

  /**
   * Creates a journal for the checkpoint of {@code length} bytes and final {@code crc}: written
   * to {@code PATH.journal.tmp} with {@code records} (the first {@code n} bytes of whole
   * records), forced and renamed over {@code PATH.journal}. Returns the open channel, positioned
   * at its end, for {@link #append}.
   */
  static FileChannel createJournal(Path journal, long length, int crc, byte[] records, int n)
      throws IOException {
    Path tmp = tmp(journal);
    Files.deleteIfExists(tmp);
    FileChannel ch = FileGuard.createNew(tmp);
    try {
      ByteBuffer header = ByteBuffer.allocate(JOURNAL_MAGIC.length + 16);
      header.put(JOURNAL_MAGIC).putLong(length).putInt(crc);
      header.putInt(LogRecords.crc(new CRC32C(), header.array(), 0, header.position()));
      header.flip();
      writeFully(ch, header);
      if (n > 0) {
        append(ch, records, n, new CRC32C());
      }
      ch.force(true);
      Files.move(tmp, journal, StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
      return ch;
    } catch (IOException | RuntimeException e) {
      ch.close();
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  /** Appends one batch of the {@code n} record bytes of {@code records}; not forced. */
  static long append(FileChannel ch, byte[] records, int n, CRC32C crc) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(LogRecords.BATCH_HEADER);
    header.putInt(0, n).putInt(4, LogRecords.crc(crc, records, 0, n));
    ByteBuffer[] both = {header, ByteBuffer.wrap(records, 0, n)};
    long written = 0;
    while (both[1].hasRemaining()) {
      written += ch.write(both);
    }
    return written;
  }

  /** Why a file of the log stops being read. */
  static final class Stop extends Exception {
    private static final long serialVersionUID = 1L;

    Stop(String message) {
      super(message);
    }
  }

  /** What a reader hands each batch's records to. */
  interface Batches {
    void apply(ByteBuffer records) throws Stop;
  }

  /** Reads a batch stream: the reused buffer grows to the largest batch read. */
  static final class BatchReader {
    private final DataInputStream in;
    private final CRC32C crc = new CRC32C();
    private byte[] buffer = new byte[1 << 16];

    BatchReader(InputStream in) {
      this.in = new DataInputStream(in);
    }

    DataInputStream data() {
      return in;
    }

    /**
     * Reads and applies batches until a zero length (returns true), or the end of the stream
     * (returns false).
     *
     * @throws Stop at a torn, oversized or damaged batch
     */
    boolean readAll(Batches to) throws Stop, IOException {
      while (true) {
        int n;
        try {
          n = in.readInt();
        } catch (EOFException e) {
          return false;
        }
        if (n == 0) {
          return true;
        }
        if (n < 0 || n > LogRecords.MAX_BATCH) {
          throw new Stop("a batch claims " + n + " bytes");
        }
        int stored;
        try {
          stored = in.readInt();
          if (buffer.length < n) {
            buffer = new byte[Math.max(n, buffer.length * 2)];
          }
          in.readFully(buffer, 0, n);
        } catch (EOFException e) {
          throw new Stop("a batch is torn");
        }
        if (LogRecords.crc(crc, buffer, 0, n) != stored) {
          throw new Stop("a batch fails its checksum");
        }
        to.apply(ByteBuffer.wrap(buffer, 0, n));
      }
    }
  }

  /** Reads the deserializer table of a checkpoint header. */
  static Map<Integer, String> readNames(DataInputStream in) throws IOException, Stop {
    int n = in.readInt();
    if (n < 0 || n > 1 << 16) {
      throw new Stop("implausible deserializer table of " + n + " entries");
    }
    Map<Integer, String> out = new HashMap<>();
    for (int i = 0; i < n; i++) {
      out.put(in.readInt(), in.readUTF());
    }
    return out;
  }

  /** What {@link #readCheckpoint} hands a checkpoint's contents to, in order. */
  interface CheckpointReader extends Batches {
    /** The deserializer table (ids as the writer had them), before any batch. */
    void deserializers(Map<Integer, String> saved);

    /**
     * After the header (checked) and the deserializer table, before any batch: the file's
     * length and the whole-file CRC its last four bytes claim (the batches prove it at the end).
     */
    default void beforeBatches(long length, int claimedCrc) throws Stop {}
  }

  /**
   * Reads a {@code TCCKPT04} checkpoint written for {@code expected} geometry, handing each
   * batch to {@code to} once its CRC holds; returns the checkpoint's {@code {length, crc}}.
   *
   * @throws Stop saying why it cannot be used (the batches handed over so far must be undone)
   */
  static long[] readCheckpoint(Path path, Checkpoint.Geometry expected, CheckpointReader to)
      throws Stop {
    long size;
    try {
      size = Files.size(path);
    } catch (IOException e) {
      throw new Stop("cannot read " + path + ": " + e);
    }
    CRC32C whole = new CRC32C();
    CRC32C header = new CRC32C();
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(path,
        StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS), 1 << 16)) {
      CheckedInputStream all = new CheckedInputStream(raw, whole);
      DataInputStream h = new DataInputStream(new CheckedInputStream(all, header));
      byte[] magic = new byte[CHECKPOINT_MAGIC.length];
      h.readFully(magic);
      if (!isCheckpoint(magic)) {
        throw new Stop(path + " is not a TCCKPT04 checkpoint");
      }
      String engine = h.readUTF();
      long capacity = h.readLong();
      int slabSize = h.readInt();
      int count = h.readInt();
      if (count < 0 || count > 255) {
        throw new Stop(path + " claims " + count + " bucket sizes");
      }
      int[] classes = new int[count];
      for (int i = 0; i < count; i++) {
        classes[i] = h.readInt();
      }
      Map<Integer, String> deser = readNames(h);
      int computed = (int) header.getValue();
      if (new DataInputStream(all).readInt() != computed) {
        throw new Stop(path + " fails its header checksum");
      }
      String mismatch = expected.mismatch(new Checkpoint.Geometry(engine, capacity, slabSize,
          classes));
      if (mismatch != null) {
        throw new Stop(path + " was written for " + mismatch);
      }
      to.deserializers(deser);
      to.beforeBatches(size, claimedCrc(path, size));
      if (!new BatchReader(all).readAll(to)) {
        throw new Stop(path + " is truncated");
      }
      int crc = (int) whole.getValue();
      if (new DataInputStream(raw).readInt() != crc) {
        throw new Stop(path + " fails its checksum");
      }
      if (raw.read() >= 0) {
        throw new Stop(path + " has bytes after its checksum");
      }
      return new long[] {size, crc};
    } catch (EOFException e) {
      throw new Stop(path + " is truncated");
    } catch (IOException e) {
      throw new Stop("cannot read " + path + ": " + e);
    }
  }

  /** The whole-file CRC a checkpoint of {@code size} bytes claims in its last four bytes. */
  private static int claimedCrc(Path path, long size) throws Stop {
    if (size < Integer.BYTES) {
      throw new Stop(path + " is truncated");
    }
    ByteBuffer last = ByteBuffer.allocate(Integer.BYTES);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS)) {
      while (last.hasRemaining()) {
        if (ch.read(last, size - Integer.BYTES + last.position()) < 0) {
          throw new Stop(path + " is truncated");
        }
      }
    } catch (IOException e) {
      throw new Stop("cannot read " + path + ": " + e);
    }
    return last.getInt(0);
  }

  /**
   * A {@code TCCKPT04} checkpoint read whole, for {@link Checkpoint#read} (tools and tests):
   * every PUBLISH record with its file's name and region, and the writer's deserializer ids.
   */
  static Checkpoint.Loaded load(Path path, Checkpoint.Geometry expected) throws Stop {
    java.util.List<BlockMeta> entries = new java.util.ArrayList<>();
    Map<Integer, String[]> names = new HashMap<>();
    Map<Integer, String> deserializers = new HashMap<>();
    readCheckpoint(path, expected, new CheckpointReader() {
      @Override
      public void deserializers(Map<Integer, String> saved) {
        deserializers.putAll(saved);
      }

      @Override
      public void apply(ByteBuffer records) throws Stop {
        while (records.hasRemaining()) {
          byte type = records.get(records.position());
          if (type == LogRecords.FILE) {
            records.get();
            int id = records.getInt();
            String name = LogRecords.getUtf(records);
            String region = name == null ? null : LogRecords.getUtf(records);
            if (region == null) {
              throw new Stop("a FILE record is cut");
            }
            names.put(id, new String[] {name, region.isEmpty() ? null : region});
          } else if (type == LogRecords.PUBLISH
              && records.remaining() >= LogRecords.PUBLISH_SIZE) {
            BlockMeta m = LogRecords.getPublish(records, new BlockMeta());
            String[] file = names.get(m.fileId);
            if (file == null) {
              throw new Stop(path + " names an unknown file id " + m.fileId);
            }
            m.file = file[0];
            m.region = file[1];
            entries.add(m);
          } else {
            throw new Stop("an unknown record type " + type + " in a checkpoint");
          }
        }
      }
    });
    return new Checkpoint.Loaded(entries, deserializers);
  }

  /** Whether {@code magic} starts a checkpoint of this format. */
  static boolean isCheckpoint(byte[] magic) {
    return Arrays.equals(magic, CHECKPOINT_MAGIC);
  }
}
