/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.EngineProvider;
import io.tiercache.core.config.CacheSettings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link PmemRegion} that simulates power loss, for tests: it keeps, beside the pool file's
 * mapping (what the CPU sees), the <em>durable</em> image (what the media holds). A store goes to
 * the mapping and marks its 64-byte cache lines dirty; {@link #flush} copies the dirty lines it
 * covers to the durable image. At the seeded crash point — before the N-th store or flush — the
 * region takes the image power loss would leave: the durable image, plus each line still dirty
 * with probability one half (a cache may write a line back at any time before the power goes,
 * whole, with every store made to it so far). The process itself goes on; the test reopens a
 * pool made of {@link #crashImage()}.
 *
 * <p>Opened through the {@code pmemsim:PATH} engine ({@link Provider}, listed in this module's
 * test {@code META-INF/services}); {@link #opened(Path)} finds the region of a pool.
 *
 * <p>Thread safe: every store and flush is synchronised (the simulation needs a total order).
 */
final class PowerLossRegion extends PmemRegion {
  static final int LINE = 64;
  private static final Map<String, PowerLossRegion> OPENED = new ConcurrentHashMap<>();
  private static final Map<String, long[]> ARMED = new ConcurrentHashMap<>();

  private final byte[] durable; // guarded by this
  private final BitSet dirty = new BitSet(); // guarded by this: lines stored since their flush
  private long ops; // guarded by this: stores and flushes so far
  private long crashAt = -1; // guarded by this
  private SplittableRandom rnd; // guarded by this
  private byte[] crashImage; // guarded by this

  PowerLossRegion(Path path, long size, int chunkSize) throws IOException {
    super(path, size, chunkSize);
    this.durable = Arrays.copyOf(Files.readAllBytes(path), (int) size);
    MappedByteBuffer[] mapped = new MappedByteBuffer[chunkCount()];
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      for (int i = 0; i < mapped.length; i++) {
        mapped[i] = ch.map(FileChannel.MapMode.READ_WRITE, chunkStart(i), chunkLength(i));
      }
    }
    install(mapped);
    String key = path.toAbsolutePath().toString();
    long[] arm = ARMED.remove(key);
    if (arm != null) {
      crashAt(arm[0], arm[1]);
    }
    OPENED.put(key, this);
  }

  /** Arms the next region opened at {@code path} from its first store (see {@link #crashAt}). */
  static void armNext(Path path, long op, long seed) {
    ARMED.put(path.toAbsolutePath().toString(), new long[] {op, seed});
  }

  /** The region of the pool at {@code path}, as last opened. */
  static PowerLossRegion opened(Path path) {
    PowerLossRegion r = OPENED.get(path.toAbsolutePath().toString());
    if (r == null) {
      throw new IllegalStateException("no simulated pool opened at " + path);
    }
    return r;
  }

  /** Arms the crash: power goes before store-or-flush number {@code op}; lines drawn by seed. */
  synchronized void crashAt(long op, long seed) {
    crashAt = op;
    rnd = new SplittableRandom(seed);
    crashImage = null;
  }

  /** Stores and flushes so far. */
  synchronized long ops() {
    return ops;
  }

  /** The pool power loss left, or null if the crash point was not reached. */
  synchronized byte[] crashImage() {
    return crashImage;
  }

  private void op() {
    if (++ops == crashAt) {
      byte[] image = durable.clone();
      for (int line = dirty.nextSetBit(0); line >= 0; line = dirty.nextSetBit(line + 1)) {
        if (rnd.nextBoolean()) {
          copyLine(line, image);
        }
      }
      crashImage = image;
    }
  }

  private void copyLine(int line, byte[] to) {
    long at = (long) line * LINE;
    int n = (int) Math.min(LINE, size - at);
    range(at, n).get(to, (int) at, n);
  }

  private void stored(long offset, long length) {
    if (length > 0) {
      dirty.set((int) (offset / LINE), (int) ((offset + length - 1) / LINE) + 1);
    }
  }

  @Override
  synchronized void put(long offset, ByteBuffer src) {
    op();
    int n = src.remaining();
    putThroughMapping(offset, src);
    stored(offset, n);
  }

  @Override
  synchronized void put(long offset, byte[] src, int from, int length) {
    op();
    putThroughMapping(offset, src, from, length);
    stored(offset, length);
  }

  @Override
  synchronized void putLong(long offset, long value) {
    op();
    putLongThroughMapping(offset, value);
    stored(offset, 8);
  }

  @Override
  synchronized void putInt(long offset, int value) {
    op();
    putIntThroughMapping(offset, value);
    stored(offset, 4);
  }

  @Override
  synchronized void zero(long offset, long length) {
    op();
    byte[] zeros = new byte[LINE * 1024];
    for (long at = offset; at < offset + length; at += zeros.length) {
      putThroughMapping(at, zeros, 0, (int) Math.min(zeros.length, offset + length - at));
    }
    stored(offset, length);
  }

  @Override
  synchronized void flush(long offset, long length) {
    op();
    if (length <= 0) {
      return;
    }
    int last = (int) ((offset + length - 1) / LINE);
    for (int line = dirty.nextSetBit((int) (offset / LINE)); line >= 0 && line <= last;
        line = dirty.nextSetBit(line + 1)) {
      copyLine(line, durable);
      dirty.clear(line);
    }
  }

  @Override
  String describe() {
    return "power-loss simulation";
  }

  /** Serves {@code pmemsim:PATH}: a pmem engine over a {@link PowerLossRegion}. */
  public static final class Provider implements EngineProvider {
    @Override
    public String scheme() {
      return "pmemsim";
    }

    @Override
    public Engine open(String path, long capacity, int slabSize) throws IOException {
      return open(path, capacity, slabSize, CacheSettings.L2_BUCKET_SIZES.defaultValue(),
          Map.of());
    }

    @Override
    public Engine open(String path, long capacity, int slabSize, int[] slotSizes,
        Map<String, String> options) throws IOException {
      return PmemEngine.open(Paths.get(path), new PoolLayout(capacity, slabSize, slotSizes),
          PowerLossRegion::new);
    }
  }
}
