/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What the file-backed engines ({@code file}, {@code files}, {@code mmap}) add: the files. */
class PersistentEngineTest {
  private static final int SLAB = EngineContractTest.SLAB;
  private static final long CAPACITY = EngineContractTest.CAPACITY;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = EngineKind.class, names = {"FILE", "FILES", "MMAP", "MMAP_CHUNKED"})
  void reopen_afterSyncAndClose_keepsContents(EngineKind kind) throws IOException {
    byte[] written = randomBytes(CAPACITY, 7);
    try (Engine engine = kind.open(dir, CAPACITY, SLAB)) {
      writeAll(engine, written);
      engine.sync();
    }
    try (Engine engine = kind.open(dir, CAPACITY, SLAB)) {
      assertEquals(ByteBuffer.wrap(written), readAll(engine));
    }
  }

  @Test
  void reopen_mmapFileAsFileEngine_seesSameLayout() throws IOException {
    byte[] written = randomBytes(CAPACITY, 8);
    try (Engine engine = EngineKind.MMAP_CHUNKED.open(dir, CAPACITY, SLAB)) {
      writeAll(engine, written);
      engine.sync();
    }
    try (Engine engine = new FileEngine(List.of(dir.resolve("cache.mmap")), CAPACITY, SLAB)) {
      assertEquals(ByteBuffer.wrap(written), readAll(engine));
    }
  }

  @ParameterizedTest
  @EnumSource(value = EngineKind.class, names = {"FILE", "FILES", "MMAP"})
  void open_newFiles_areOwnerReadWriteOnly(EngineKind kind) throws IOException {
    assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"));
    kind.open(dir, CAPACITY, SLAB).close();
    List<Path> files = listFiles();
    assertTrue(!files.isEmpty());
    for (Path file : files) {
      assertEquals("rw-------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(file)), file.toString());
    }
  }

  @Test
  void open_twoFilesForFiveSlabs_splitsThreeAndTwoSlabs() throws IOException {
    EngineKind.FILES.open(dir, CAPACITY, SLAB).close();
    assertEquals(3L * SLAB, Files.size(dir.resolve("a.bin")));
    assertEquals(2L * SLAB, Files.size(dir.resolve("b.bin")));
  }

  @ParameterizedTest
  @EnumSource(value = EngineKind.class, names = {"FILE", "MMAP"})
  void open_existingFileOfWrongSize_resizesToCapacity(EngineKind kind) throws IOException {
    for (long wrong : new long[] {100, CAPACITY + 12345}) {
      Path file = dir.resolve(kind == EngineKind.FILE ? "cache.bin" : "cache.mmap");
      Files.write(file, new byte[(int) wrong]);
      kind.open(dir, CAPACITY, SLAB).close();
      assertEquals(CAPACITY, Files.size(file));
    }
  }

  @Test
  void read_afterBackingFileTruncated_throwsEOFException() throws IOException {
    try (Engine engine = EngineKind.FILE.open(dir, CAPACITY, SLAB)) {
      writeAll(engine, randomBytes(CAPACITY, 9));
      try (RandomAccessFile file = new RandomAccessFile(dir.resolve("cache.bin").toFile(), "rw")) {
        file.setLength(3L * SLAB + 10);
      }
      assertThrows(EOFException.class, () -> engine.read(4L * SLAB, ByteBuffer.allocate(10)));
      assertThrows(EOFException.class, () -> engine.read(3L * SLAB, ByteBuffer.allocate(20)));
      engine.read(3L * SLAB, ByteBuffer.allocate(10)); // still inside the file
    }
  }

  @Test
  void read_afterInterruptClosedChannel_reopensForLaterReads() throws IOException {
    byte[] written = randomBytes(CAPACITY, 10);
    try (Engine engine = EngineKind.FILE.open(dir, CAPACITY, SLAB)) {
      writeAll(engine, written);
      Thread.currentThread().interrupt();
      try {
        assertThrows(ClosedByInterruptException.class,
            () -> engine.read(0, ByteBuffer.allocate(16)));
      } finally {
        assertTrue(Thread.interrupted(), "the interrupt status is kept for the caller");
      }
      assertEquals(ByteBuffer.wrap(written), readAll(engine));
    }
  }

  private List<Path> listFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.collect(Collectors.toList());
    }
  }

  private static byte[] randomBytes(long size, long seed) {
    byte[] bytes = new byte[(int) size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static void writeAll(Engine engine, byte[] bytes) throws IOException {
    for (int slab = 0; slab < bytes.length / SLAB; slab++) {
      engine.write((long) slab * SLAB, ByteBuffer.wrap(bytes, slab * SLAB, SLAB));
    }
  }

  private static ByteBuffer readAll(Engine engine) throws IOException {
    ByteBuffer all = ByteBuffer.allocate((int) engine.capacity());
    for (int slab = 0; slab < all.capacity() / SLAB; slab++) {
      engine.read((long) slab * SLAB, all.limit((slab + 1) * SLAB));
    }
    return all.flip();
  }
}
