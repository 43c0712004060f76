/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.data;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileContext;

/**
 * The blocks of a {@link BlockLayout} on disk: one file written once and reused by later runs
 * with the same layout (a different layout of the same block sizes replaces it),
 * read back block by block with positional reads, as an HFile reader does on a cache miss.
 *
 * <p>Each block is a real {@link HFileBlock}: HBase's header (filled by
 * {@link Blocks#of}), then a payload that starts with the block's
 * {@linkplain BlockLayout#tag tag} and goes on with incompressible bytes. {@link #verify} checks
 * the tag, so a cache that serves another block's bytes is caught.
 *
 * <p>Concurrency: after {@link #open} any thread may call {@link #read}, {@link #key} and
 * {@link #verify}; positional reads do not share a file position.
 */
public final class Dataset implements Closeable {
  private static final int NOISE_BYTES = 1 << 20;

  private final BlockLayout layout;
  private final Path path;
  private final FileChannel channel;
  private final HFileContext[] contexts;

  private Dataset(BlockLayout layout, Path path, FileChannel channel) {
    this.layout = layout;
    this.path = path;
    this.channel = channel;
    this.contexts = new HFileContext[layout.fileCount()];
    for (int f = 0; f < contexts.length; f++) {
      contexts[f] = Blocks.context(layout.fileName(f), layout.sizes().typicalPayload());
    }
  }

  /**
   * Opens the dataset file for {@code layout} in {@code dir}, writing it first unless a previous
   * run left one with the same fingerprint.
   */
  public static Dataset open(BlockLayout layout, Path dir) throws IOException {
    Files.createDirectories(dir);
    String name = "blocks-" + layout.sizes().label() + "-" + Long.toHexString(fingerprint(layout));
    Path path = dir.resolve(name + ".dat");
    Path done = dir.resolve(name + ".done");
    if (!Files.exists(done) || !Files.exists(path) || Files.size(path) != layout.totalBytes()) {
      deleteOthers(dir, "blocks-" + layout.sizes().label() + "-");
      write(layout, path);
      Files.write(done, Long.toString(layout.totalBytes()).getBytes(StandardCharsets.US_ASCII));
    }
    Dataset dataset = new Dataset(layout, path, FileChannel.open(path, StandardOpenOption.READ));
    dataset.checkSample();
    return dataset;
  }

  public BlockLayout layout() {
    return layout;
  }

  public Path path() {
    return path;
  }

  /** The cache key HBase's reader would build for this block. */
  public BlockCacheKey key(int id) {
    return new BlockCacheKey(layout.fileName(layout.fileOf(id)), layout.offset(id), true,
        layout.type(id));
  }

  /**
   * Reads the block from the file into a new heap buffer and wraps it as an {@link HFileBlock}
   * holding one reference, which the caller releases.
   */
  public HFileBlock read(int id) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(layout.onDiskSize(id));
    long pos = layout.position(id);
    while (buf.hasRemaining()) {
      int n = channel.read(buf, pos + buf.position());
      if (n < 0) {
        throw new EOFException(path + ": block " + id + " ends past the end of the file");
      }
    }
    buf.flip();
    return block(id, buf);
  }

  /** Builds block {@code id} over {@code buf} (header space, then payload). */
  HFileBlock block(int id, ByteBuffer buf) {
    return Blocks.of(layout.type(id), buf, layout.offset(id), layout.prevOffset(id),
        layout.nextOnDiskSize(id), contexts[layout.fileOf(id)]);
  }

  /** Whether {@code block} carries the bytes of block {@code id} (its tag and length). */
  public boolean verify(int id, Cacheable block) {
    if (!(block instanceof HFileBlock)) {
      return false;
    }
    HFileBlock b = (HFileBlock) block;
    return b.getUncompressedSizeWithoutHeader() == layout.payload(id)
        && b.getBufferReadOnly().getLong(b.headerSize()) == layout.tag(id);
  }

  /**
   * Reads the first {@code bytes} of the file (the blocks of a scenario's files, which come first)
   * once, in 1 MB reads, so that a cell's subject starts with them in the page cache: the kernel
   * may have dropped some since the file was written, and the first subject of each cell would
   * otherwise read those from disk in its measured phase while the subjects after it found them
   * cached. Returns the bytes read: {@code bytes}, or the file's length if shorter.
   */
  public long warm(long bytes) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    long end = Math.min(bytes, channel.size());
    long pos = 0;
    while (pos < end) {
      buf.clear().limit((int) Math.min(buf.capacity(), end - pos));
      int n = channel.read(buf, pos);
      if (n < 0) {
        break;
      }
      pos += n;
    }
    return pos;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private static long fingerprint(BlockLayout layout) {
    long h = layout.seed() * 31 + layout.blockCount();
    h = h * 31 + layout.totalBytes();
    h = h * 31 + layout.sizes().ordinal();
    return h;
  }

  private static void write(BlockLayout layout, Path path) throws IOException {
    byte[] noise = new byte[NOISE_BYTES];
    new SplittableRandom(layout.seed() ^ 0xC0FFEEL).nextBytes(noise);
    Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      Dataset writer = new Dataset(layout, tmp, null);
      for (int id = 0; id < layout.blockCount(); id++) {
        int payload = layout.payload(id);
        ByteBuffer buf = ByteBuffer.allocate(BlockLayout.HEADER + payload);
        int from = (int) Long.remainderUnsigned(layout.tag(id), NOISE_BYTES - payload);
        buf.position(BlockLayout.HEADER);
        buf.putLong(layout.tag(id));
        buf.put(noise, from, payload - Long.BYTES);
        buf.rewind();
        writer.block(id, buf);
        buf.rewind();
        long pos = layout.position(id);
        while (buf.hasRemaining()) {
          out.write(buf, pos + buf.position());
        }
      }
    }
    Files.move(tmp, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  /** Keeps one dataset per block-size kind: a new layout replaces the files of the old one. */
  private static void deleteOthers(Path dir, String prefix) throws IOException {
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (p.getFileName().toString().startsWith(prefix)) {
          Files.delete(p);
        }
      }
    }
  }

  /** Reads a few blocks back so a stale or truncated file fails here, not mid-run. */
  private void checkSample() throws IOException {
    int n = layout.blockCount();
    for (int id : new int[] {0, n / 2, n - 1}) {
      HFileBlock b = read(id);
      try {
        if (!verify(id, b)) {
          throw new IOException(path + ": block " + id + " does not hold its bytes; delete the file");
        }
      } finally {
        b.release();
      }
    }
  }
}
