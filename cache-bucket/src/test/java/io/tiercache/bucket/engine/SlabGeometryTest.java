/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.config.CacheSettings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slabs of whole pages that are not a power of two (the default slab is 32 slots of 64.25 KB):
 * the memory engines' chunks hold whole slabs, and every byte lands where it was written.
 */
class SlabGeometryTest {
  /** Three pages: not a power of two. */
  private static final int SLAB = 3 * Slabs.PAGE;
  private static final int SLABS = 5;

  @TempDir Path dir;

  @Test
  void geometry_acceptsWholePages_refusesTheRest() {
    assertNull(Slabs.geometryProblem(10L * CacheSettings.DEFAULT_SLAB_SIZE,
        CacheSettings.DEFAULT_SLAB_SIZE));
    assertEquals(0, CacheSettings.DEFAULT_SLAB_SIZE % Slabs.PAGE);
    assertNull(Slabs.geometryProblem(SLABS * SLAB, SLAB));
    String problem = Slabs.geometryProblem(4 * 4_100_000L, 4_100_000);
    assertNotNull(problem);
    assertTrue(problem.contains("multiple of 4096"), problem);
    assertNotNull(Slabs.geometryProblem(SLABS * SLAB + Slabs.PAGE, SLAB),
        "capacity not whole slabs");
  }

  @Test
  void offHeap_everySlabKeepsItsBytes() {
    MemoryEngine engine = new OffHeapEngine(SLABS * SLAB, SLAB);
    try {
      writeAndCheckEverySlab(engine);
    } finally {
      engine.close();
    }
  }

  @Test
  void mmap_chunksOfWholeSlabs_everySlabKeepsItsBytes() throws IOException {
    // A 32 KB chunk limit holds two 12 KB slabs: chunks of 24 KB, the last one of 12 KB.
    MemoryEngine engine =
        new MmapEngine(dir.resolve("cache.mmap"), SLABS * SLAB, SLAB, 32 * 1024);
    try {
      assertEquals(3, engine.chunkCount());
      assertEquals(2 * SLAB, engine.chunkLength(0));
      assertEquals(SLAB, engine.chunkLength(2));
      writeAndCheckEverySlab(engine);
    } finally {
      engine.close();
    }
  }

  /** Fills each slab with its own pattern, reads it back both ways, refuses a straddling range. */
  private static void writeAndCheckEverySlab(MemoryEngine engine) {
    for (int s = 0; s < SLABS; s++) {
      ByteBuffer src = ByteBuffer.allocate(SLAB);
      for (int i = 0; i < SLAB; i++) {
        src.put(i, pattern(s, i));
      }
      engine.write((long) s * SLAB, src);
    }
    for (int s = 0; s < SLABS; s++) {
      ByteBuffer view = engine.view((long) s * SLAB, SLAB);
      ByteBuffer copy = ByteBuffer.allocate(SLAB);
      engine.read((long) s * SLAB, copy);
      for (int i = 0; i < SLAB; i++) {
        assertEquals(pattern(s, i), view.get(i), "slab " + s + " byte " + i);
        assertEquals(pattern(s, i), copy.get(i), "slab " + s + " byte " + i);
      }
    }
    assertThrows(IllegalArgumentException.class, () -> engine.view(SLAB - 8, 16),
        "a range across two slabs");
    assertThrows(IndexOutOfBoundsException.class,
        () -> engine.view((long) SLABS * SLAB - 8, 16));
  }

  private static byte pattern(int slab, int i) {
    return (byte) (slab * 31 + i * 7 + (i >>> 8));
  }
}
