/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.engine.FileGuard;
import io.tiercache.bucket.meta.BlockMeta;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;

/**
 * The L2's index checkpoint: what a persistent engine holds, so that a restarted RegionServer
 * serves hits at once without reading any block.
 *
 * <h2>File format (big-endian)</h2>
 * <pre>
 *   magic      8 bytes  "TCCKPT03"
 *   engine     UTF      the engine spec (file:/..., mmap:/...)
 *   capacity   long     slabSize int   classes int, then that many slot sizes (int)
 *   deser      int n, then n × (id int, class name UTF)   HBase deserializer ids of this JVM
 *   blocks     chunks, each: int n (1 ≤ n), then n × entry (37 bytes); then int 0
 *                entry: fileId int, blockOffset long, slab int, slot int, sizeClass byte,
 *                length int, checksum int, flags byte, deser byte, type byte, freq byte,
 *                cachedAt int   (the fields of a {@link BlockMeta}; slab and slot are its
 *                handle's, see {@code alloc.Handles})
 *   files      int n, then n × (id int, name UTF)   every file id the blocks name
 *   regions    int n, then n × (file id int, region UTF)   encoded region of a file, where known
 *   crc        int      CRC32C of every byte above
 * </pre>
 * The blocks come before the tables that name their files, and in chunks, so a checkpoint is
 * streamed from the off-heap index through one reused buffer ({@link Writer}): its heap
 * allocation does not grow with the number of blocks (issue 14), only with the number of files.
 * Older formats are still read, so an upgrade restarts warm: {@code TCCKPT02} has the files and
 * regions tables before the blocks, and the blocks as {@code long n} then n entries;
 * {@code TCCKPT01} is {@code TCCKPT02} without the regions table.
 *
 * Written to {@code path.tmp} (created anew, owner-only, through one channel opened without
 * following links), forced to disk, then renamed over {@code path}, so a crash leaves either the
 * old checkpoint or the new one, never half of one. Read without following a link. The caller
 * validates the path and holds its lock ({@code FileGuard}); see {@code Persistence}.
 *
 * <h2>Why restored blocks are safe</h2>
 * A checkpoint may name a slot that was rewritten after it was taken, or whose bytes never
 * reached the disk before a crash. Every block carries the CRC32C of its bytes; a restored block
 * is verified on its first read and dropped if it does not match, so a stale or torn slot is a
 * miss, never wrong bytes.
 */
public final class Checkpoint {
  private static final byte[] MAGIC = "TCCKPT03".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  /** The format before the blocks were streamed: still read, so an upgrade restarts warm. */
  private static final byte[] MAGIC_V2 =
      "TCCKPT02".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  /** The format before regions were kept: still read, so an upgrade restarts warm. */
  private static final byte[] MAGIC_V1 =
      "TCCKPT01".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** The geometry a checkpoint must match to be loaded. */
  public static final class Geometry {
    final String engine;
    final long capacity;
    final int slabSize;
    final int[] classSizes;

    public Geometry(String engine, long capacity, int slabSize, int[] classSizes) {
      this.engine = engine;
      this.capacity = capacity;
      this.slabSize = slabSize;
      this.classSizes = classSizes.clone();
    }

    String mismatch(Geometry other) {
      if (!engine.equals(other.engine)) {
        return "engine " + other.engine + " (now " + engine + ")";
      }
      if (capacity != other.capacity || slabSize != other.slabSize) {
        return "capacity/slab " + other.capacity + "/" + other.slabSize + " (now " + capacity
            + "/" + slabSize + ")";
      }
      if (!Arrays.equals(classSizes, other.classSizes)) {
        return "bucket sizes " + Arrays.toString(other.classSizes) + " (now "
            + Arrays.toString(classSizes) + ")";
      }
      return null;
    }
  }

  /** What {@link #read} found. */
  public static final class Loaded {
    public final List<BlockMeta> entries;
    /** Deserializer class names by the id they had when the checkpoint was written. */
    public final Map<Integer, String> deserializers;

    Loaded(List<BlockMeta> entries, Map<Integer, String> deserializers) {
      this.entries = entries;
      this.deserializers = deserializers;
    }
  }

  /** The checkpoint cannot be used: missing, truncated, corrupt or written for other geometry. */
  public static final class Unusable extends Exception {
    private static final long serialVersionUID = 1L;

    Unusable(String message) {
      super(message);
    }
  }

  private Checkpoint() {}

  /**
   * Writes a checkpoint of {@code entries} atomically (a convenience over {@link Writer} for
   * callers that hold the entries already).
   */
  public static void write(Path path, Geometry geometry, Map<Integer, String> deserializers,
      Map<Integer, String> files, Map<Integer, String> regions, List<BlockMeta> entries)
      throws IOException {
    try (Writer w = Writer.open(path, geometry, deserializers, new byte[Writer.MIN_BUFFER])) {
      for (BlockMeta e : entries) {
        w.block(e);
      }
      w.finish(files, regions);
    }
  }

  /**
   * Streams one checkpoint to {@code path.tmp}: the header at {@link #open}, then each block as
   * the caller visits it ({@link #block}, no allocation: the record goes into the caller's
   * buffer, which is written out and checksummed when full), then the file and region tables and
   * the CRC ({@link #finish}), which forces the file and renames it over {@code path}.
   * {@link #close} without {@link #finish} deletes the temporary file. One thread uses a writer.
   */
  public static final class Writer implements java.io.Closeable {
    /** Bytes of one block record. */
    public static final int ENTRY = 37;
    /** The least buffer {@link #open} takes: room for a chunk header and a record. */
    public static final int MIN_BUFFER = 4 + ENTRY;

    private final Path path;
    private final Path tmp;
    private final FileChannel ch;
    private final java.nio.ByteBuffer buf;
    private final CRC32C crc = new CRC32C();
    private int chunkAt = -1; // position of the open chunk's count in buf, or -1
    private int chunkBlocks;
    private long blocks;
    private boolean finished;

    private Writer(Path path, Path tmp, FileChannel ch, byte[] buffer) {
      this.path = path;
      this.tmp = tmp;
      this.ch = ch;
      this.buf = java.nio.ByteBuffer.wrap(buffer); // big-endian, as DataOutputStream
    }

    /**
     * Creates {@code path.tmp} anew and writes the header. {@code buffer} (at least
     * {@link #MIN_BUFFER} bytes) is used for the whole checkpoint; the caller may reuse it for
     * the next one.
     */
    public static Writer open(Path path, Geometry geometry, Map<Integer, String> deserializers,
        byte[] buffer) throws IOException {
      if (buffer.length < MIN_BUFFER) {
        throw new IllegalArgumentException("a checkpoint buffer of " + buffer.length
            + " bytes is below " + MIN_BUFFER);
      }
      Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
      Files.deleteIfExists(tmp); // a link there is removed, never followed
      Writer w = new Writer(path, tmp, FileGuard.createNew(tmp), buffer);
      try {
        DataOutputStream out = w.data();
        out.write(MAGIC);
        out.writeUTF(geometry.engine);
        out.writeLong(geometry.capacity);
        out.writeInt(geometry.slabSize);
        out.writeInt(geometry.classSizes.length);
        for (int s : geometry.classSizes) {
          out.writeInt(s);
        }
        writeNames(out, deserializers);
        out.flush();
      } catch (IOException | RuntimeException e) {
        w.close();
        throw e;
      }
      return w;
    }

    /**
     * Appends the record of {@code m} (its file id, block offset, handle, size class, length,
     * checksum, flags, deserializer, type, freq and cached-at time); allocates nothing.
     */
    public void block(BlockMeta m) throws IOException {
      if (buf.remaining() < (chunkAt < 0 ? 4 + ENTRY : ENTRY)) {
        drain();
      }
      if (chunkAt < 0) {
        chunkAt = buf.position();
        chunkBlocks = 0;
        buf.putInt(0);
      }
      buf.putInt(m.fileId).putLong(m.blockOffset).putInt(Handles.slab(m.handle))
          .putInt(Handles.slot(m.handle)).put((byte) m.sizeClass).putInt(m.length)
          .putInt(m.checksum).put((byte) m.flags).put((byte) m.deserializer).put((byte) m.type)
          .put((byte) m.freq).putInt(m.cachedAt);
      chunkBlocks++;
      blocks++;
    }

    /** Number of blocks appended so far. */
    public long blocks() {
      return blocks;
    }

    /**
     * Ends the blocks, writes the tables naming every file id the blocks carry, the CRC, forces
     * the file to disk and renames it over the checkpoint.
     */
    public void finish(Map<Integer, String> files, Map<Integer, String> regions)
        throws IOException {
      DataOutputStream out = data();
      out.writeInt(0); // no more chunks (closes the open one first, see drain)
      writeNames(out, files);
      writeNames(out, regions);
      out.flush();
      drain();
      buf.putInt((int) crc.getValue());
      buf.flip();
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      buf.clear();
      ch.force(true);
      ch.close();
      Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
      finished = true;
    }

    /** Closes the open chunk and writes the buffer out, feeding the checksum. */
    private void drain() throws IOException {
      if (chunkAt >= 0) {
        buf.putInt(chunkAt, chunkBlocks);
        chunkAt = -1;
      }
      crc.update(buf.array(), 0, buf.position());
      buf.flip();
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      buf.clear();
    }

    /** A stream into the buffer (for the header and the tables; closes the open chunk). */
    private DataOutputStream data() throws IOException {
      if (chunkAt >= 0) {
        drain();
      }
      return new DataOutputStream(new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          if (!buf.hasRemaining()) {
            drain();
          }
          buf.put((byte) b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          while (len > 0) {
            if (!buf.hasRemaining()) {
              drain();
            }
            int n = Math.min(len, buf.remaining());
            buf.put(b, off, n);
            off += n;
            len -= n;
          }
        }
      });
    }

    /** Deletes the temporary file unless {@link #finish} succeeded. */
    @Override
    public void close() throws IOException {
      if (finished) {
        return;
      }
      buf.clear();
      try {
        ch.close();
      } finally {
        Files.deleteIfExists(tmp);
      }
    }
  }

  /**
   * Reads a checkpoint written for {@code expected} geometry.
   *
   * @throws Unusable saying why the checkpoint cannot be used (the caller starts cold)
   */
  public static Loaded read(Path path, Geometry expected) throws Unusable {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      throw new Unusable("no checkpoint at " + path);
    }
    long size;
    try {
      size = Files.size(path);
    } catch (IOException e) {
      throw new Unusable("cannot read " + path + ": " + e);
    }
    CRC32C crc = new CRC32C();
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(path,
        StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS), 1 << 16)) {
      CheckedInputStream checked = new CheckedInputStream(new LimitedInputStream(raw, size - 4),
          crc);
      DataInputStream in = new DataInputStream(checked);
      byte[] magic = new byte[MAGIC.length];
      in.readFully(magic);
      boolean v1 = Arrays.equals(magic, MAGIC_V1);
      boolean v2 = Arrays.equals(magic, MAGIC_V2);
      if (!v1 && !v2 && !Arrays.equals(magic, MAGIC)) {
        throw new Unusable(path + " is not a TierCache checkpoint");
      }
      String engine = in.readUTF();
      long capacity = in.readLong();
      int slabSize = in.readInt();
      int classCount = in.readInt();
      if (classCount < 0 || classCount > 255) {
        throw new Unusable(path + " claims " + classCount + " bucket sizes");
      }
      int[] classes = new int[classCount];
      for (int i = 0; i < classes.length; i++) {
        classes[i] = in.readInt();
      }
      String mismatch = expected.mismatch(new Geometry(engine, capacity, slabSize, classes));
      if (mismatch != null) {
        throw new Unusable(path + " was written for " + mismatch);
      }
      Map<Integer, String> deser = readNames(in);
      List<BlockMeta> entries;
      Map<Integer, String> files;
      Map<Integer, String> regions;
      if (v1 || v2) {
        files = readNames(in);
        regions = v1 ? Map.of() : readNames(in);
        long n = in.readLong();
        if (n < 0 || n > size / 30) {
          throw new Unusable(path + " claims " + n + " blocks in " + size + " bytes");
        }
        entries = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) {
          entries.add(readEntry(in));
        }
      } else {
        entries = new ArrayList<>();
        for (int n = in.readInt(); n != 0; n = in.readInt()) {
          if (n < 0 || n > size / Writer.ENTRY - entries.size()) {
            throw new Unusable(path + " claims a chunk of " + n + " blocks in " + size
                + " bytes");
          }
          for (int i = 0; i < n; i++) {
            entries.add(readEntry(in));
          }
        }
        files = readNames(in);
        regions = readNames(in);
      }
      for (BlockMeta e : entries) {
        e.file = files.get(e.fileId);
        e.region = regions.get(e.fileId);
        if (e.file == null) {
          throw new Unusable(path + " names an unknown file id " + e.fileId);
        }
      }
      int computed = (int) crc.getValue();
      int stored = new DataInputStream(raw).readInt();
      if (computed != stored) {
        throw new Unusable(path + " fails its checksum");
      }
      if (raw.read() >= 0) {
        throw new Unusable(path + " has bytes after its checksum");
      }
      return new Loaded(entries, deser);
    } catch (EOFException e) {
      throw new Unusable(path + " is truncated");
    } catch (IOException e) {
      throw new Unusable("cannot read " + path + ": " + e);
    }
  }

  private static void writeNames(DataOutputStream out, Map<Integer, String> names)
      throws IOException {
    out.writeInt(names.size());
    for (Map.Entry<Integer, String> e : names.entrySet()) {
      out.writeInt(e.getKey());
      out.writeUTF(e.getValue());
    }
  }

  private static BlockMeta readEntry(DataInputStream in) throws IOException {
    BlockMeta e = new BlockMeta();
    e.fileId = in.readInt();
    e.blockOffset = in.readLong();
    int slab = in.readInt();
    e.handle = Handles.of(slab, in.readInt());
    e.sizeClass = in.readUnsignedByte();
    e.length = in.readInt();
    e.checksum = in.readInt();
    e.flags = in.readUnsignedByte();
    e.deserializer = in.readUnsignedByte();
    e.type = in.readUnsignedByte();
    e.freq = in.readUnsignedByte();
    e.cachedAt = in.readInt();
    return e;
  }

  private static Map<Integer, String> readNames(DataInputStream in) throws IOException, Unusable {
    int n = in.readInt();
    if (n < 0 || n > 50_000_000) {
      throw new Unusable("implausible name table of " + n + " entries");
    }
    Map<Integer, String> out = new HashMap<>();
    for (int i = 0; i < n; i++) {
      out.put(in.readInt(), in.readUTF());
    }
    return out;
  }

  /** Reads at most {@code limit} bytes, so the trailing CRC is not fed to the checksum. */
  private static final class LimitedInputStream extends java.io.FilterInputStream {
    private long left;

    LimitedInputStream(InputStream in, long limit) {
      super(in);
      this.left = Math.max(0, limit);
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = super.read();
      if (b >= 0) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = super.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }

    @Override
    public void close() {
      // The caller closes the underlying stream.
    }
  }
}
