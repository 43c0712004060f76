/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link Engine} contract, run over every engine: each access is checked against an on-heap
 * reference copy of what was written.
 */
class EngineContractTest {
  static final int SLAB = 64 * 1024;
  /** Five slabs: the two-file engine splits them 3 + 2, the chunked mmap 2 + 2 + 1. */
  static final long CAPACITY = 5L * SLAB;

  @TempDir Path dir;
  private Engine engine;

  @AfterEach
  void closeEngine() throws IOException {
    if (engine != null) {
      engine.close();
    }
  }

  @ParameterizedTest
  @EnumSource(EngineKind.class)
  void read_afterRandomWrites_matchesReference(EngineKind kind) throws IOException {
    engine = kind.open(dir, CAPACITY, SLAB);
    Random random = new Random(42);
    byte[] reference = new byte[(int) CAPACITY];
    for (int i = 0; i < 300; i++) {
      long[] range = randomRange(random);
      byte[] bytes = new byte[(int) range[1]];
      random.nextBytes(bytes);
      ByteBuffer src = buffer(bytes.length + 3, random.nextBoolean());
      src.position(3);
      src.put(bytes).flip().position(3); // data not at position 0: only remaining() counts
      engine.write(range[0], src);
      assertFalse(src.hasRemaining(), "write consumes the source");
      System.arraycopy(bytes, 0, reference, (int) range[0], bytes.length);
    }
    for (int slab = 0; slab < 5; slab++) {
      assertRange(reference, (long) slab * SLAB, SLAB, true);
    }
    for (int i = 0; i < 300; i++) {
      long[] range = randomRange(random);
      assertRange(reference, range[0], (int) range[1], random.nextBoolean());
    }
  }

  @ParameterizedTest
  @EnumSource(value = EngineKind.class, names = {"OFFHEAP", "MMAP", "MMAP_CHUNKED"})
  void view_zeroCopyEngine_isReadOnlySliceThatSeesLaterWrites(EngineKind kind)
      throws IOException {
    engine = kind.open(dir, CAPACITY, SLAB);
    ByteBuffer view = engine.view(3L * SLAB + 100, 8);
    assertTrue(view.isReadOnly());
    assertEquals(0, view.position());
    assertEquals(8, view.limit());
    assertEquals(8, view.capacity());
    engine.write(3L * SLAB + 100, ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
    assertEquals(0x0102030405060708L, view.getLong(0), "the view is the engine's memory");
  }

  @ParameterizedTest
  @EnumSource(value = EngineKind.class, names = {"FILE", "FILES"})
  void view_copyingEngine_throwsUnsupported(EngineKind kind) throws IOException {
    engine = kind.open(dir, CAPACITY, SLAB);
    assertThrows(UnsupportedOperationException.class, () -> engine.view(0, 1));
  }

  @ParameterizedTest
  @EnumSource(EngineKind.class)
  void access_rangeCrossingSlabBoundary_throwsWithoutWriting(EngineKind kind)
      throws IOException {
    engine = kind.open(dir, CAPACITY, SLAB);
    long offset = 2L * SLAB - 10;
    byte[] ones = new byte[20];
    Arrays.fill(ones, (byte) 1);
    assertThrows(IllegalArgumentException.class,
        () -> engine.write(offset, ByteBuffer.wrap(ones)));
    assertThrows(IllegalArgumentException.class,
        () -> engine.read(offset, ByteBuffer.allocate(20)));
    if (engine.isZeroCopy()) {
      assertThrows(IllegalArgumentException.class, () -> engine.view(offset, 20));
    }
    assertRange(new byte[(int) CAPACITY], offset - 100, 100, false);
    assertRange(new byte[(int) CAPACITY], offset + 10, 100, false);
  }

  @ParameterizedTest
  @EnumSource(EngineKind.class)
  void access_rangeOutsideCapacity_throwsIndexOutOfBounds(EngineKind kind) throws IOException {
    engine = kind.open(dir, CAPACITY, SLAB);
    long[] offsets = {CAPACITY - 10, CAPACITY, -1, Long.MAX_VALUE - 5, Long.MIN_VALUE};
    for (long offset : offsets) {
      assertThrows(IndexOutOfBoundsException.class,
          () -> engine.write(offset, ByteBuffer.allocate(20)), "write at " + offset);
      assertThrows(IndexOutOfBoundsException.class,
          () -> engine.read(offset, ByteBuffer.allocate(20)), "read at " + offset);
      if (engine.isZeroCopy()) {
        assertThrows(IndexOutOfBoundsException.class, () -> engine.view(offset, 20));
      }
    }
    if (engine.isZeroCopy()) {
      assertThrows(IndexOutOfBoundsException.class, () -> engine.view(0, -1));
    }
  }

  @ParameterizedTest
  @EnumSource(EngineKind.class)
  void access_emptyRangeAtEnd_isAllowed(EngineKind kind) throws IOException {
    engine = kind.open(dir, CAPACITY, SLAB);
    engine.write(CAPACITY, ByteBuffer.allocate(0));
    engine.read(CAPACITY, ByteBuffer.allocate(0));
    if (engine.isZeroCopy()) {
      assertEquals(0, engine.view(CAPACITY, 0).remaining());
    }
  }

  @ParameterizedTest
  @EnumSource(EngineKind.class)
  void describe_eachEngine_reportsGeometryAndKind(EngineKind kind) throws IOException {
    engine = kind.open(dir, CAPACITY, SLAB);
    assertEquals(CAPACITY, engine.capacity());
    assertEquals(SLAB, engine.slabSize());
    boolean memory = kind == EngineKind.OFFHEAP || kind.name().startsWith("MMAP");
    assertEquals(memory, engine.isZeroCopy());
    assertEquals(kind != EngineKind.OFFHEAP, engine.isPersistent());
    String scheme = kind.name().replace("_CHUNKED", "").toLowerCase();
    assertTrue(engine.describe().startsWith(scheme), engine.describe());
    assertDoesNotThrow(engine::sync);
  }

  @ParameterizedTest
  @EnumSource(EngineKind.class)
  void close_calledTwice_isHarmlessAndLaterAccessFails(EngineKind kind) throws IOException {
    engine = kind.open(dir, CAPACITY, SLAB);
    engine.close();
    engine.close();
    assertThrows(IllegalStateException.class, () -> engine.read(0, ByteBuffer.allocate(8)));
    assertThrows(IllegalStateException.class, () -> engine.write(0, ByteBuffer.allocate(8)));
    if (engine.isZeroCopy()) {
      assertThrows(IllegalStateException.class, () -> engine.view(0, 8));
    }
  }

  @ParameterizedTest
  @EnumSource(EngineKind.class)
  void readWrite_concurrentThreadsOnDisjointSlabs_eachSeesItsOwnBytes(EngineKind kind)
      throws Exception {
    engine = kind.open(dir, CAPACITY, SLAB);
    ExecutorService pool = Executors.newFixedThreadPool(5);
    try {
      List<Callable<Void>> workers = new ArrayList<>();
      for (int slab = 0; slab < 5; slab++) {
        long base = (long) slab * SLAB;
        Random random = new Random(1000 + slab);
        workers.add(() -> {
          for (int i = 0; i < 200; i++) {
            int start = random.nextInt(SLAB);
            byte[] bytes = new byte[1 + random.nextInt(Math.min(4096, SLAB - start))];
            random.nextBytes(bytes);
            engine.write(base + start, ByteBuffer.wrap(bytes));
            ByteBuffer back = ByteBuffer.allocate(bytes.length);
            engine.read(base + start, back);
            assertArrayEquals(bytes, back.array());
          }
          return null;
        });
      }
      for (Future<Void> done : pool.invokeAll(workers)) {
        done.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** {offset, length}: inside one slab; a quarter are slab-aligned. */
  private static long[] randomRange(Random random) {
    long slabStart = (long) random.nextInt(5) * SLAB;
    int start = random.nextInt(4) == 0 ? 0 : random.nextInt(SLAB);
    return new long[] {slabStart + start, 1 + random.nextInt(SLAB - start)};
  }

  private void assertRange(byte[] reference, long offset, int length, boolean direct)
      throws IOException {
    byte[] expected = Arrays.copyOfRange(reference, (int) offset, (int) offset + length);
    ByteBuffer dst = buffer(length, direct);
    engine.read(offset, dst);
    assertFalse(dst.hasRemaining(), "read fills the destination");
    assertEquals(ByteBuffer.wrap(expected), dst.flip(), "read at " + offset);
    if (engine.isZeroCopy()) {
      assertEquals(ByteBuffer.wrap(expected), engine.view(offset, length), "view at " + offset);
    }
  }

  private static ByteBuffer buffer(int size, boolean direct) {
    return direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
  }
}
