/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Memory engines give their memory back on close, not when the GC gets round to it. */
class EngineMemoryTest {
  private static final long MB = 1024 * 1024;

  @TempDir Path dir;

  @Test
  void close_offHeap64Mb_returnsDirectMemory() {
    assumeTrue(DirectMemory.canFree());
    BufferPoolMXBean direct = pool("direct");
    long before = direct.getMemoryUsed();
    OffHeapEngine engine = new OffHeapEngine(64 * MB, (int) (4 * MB));
    assertTrue(direct.getMemoryUsed() - before >= 64 * MB, "allocated");
    engine.close();
    assertTrue(direct.getMemoryUsed() - before < MB,
        "direct memory still held: " + (direct.getMemoryUsed() - before));
  }

  @Test
  void close_mmapInThreeChunks_unmapsEveryChunk() throws IOException {
    assumeTrue(DirectMemory.canFree());
    BufferPoolMXBean mapped = pool("mapped");
    long count = mapped.getCount();
    long used = mapped.getMemoryUsed();
    Engine engine = new MmapEngine(dir.resolve("cache.mmap"), 5 * MB, (int) MB, (int) (2 * MB));
    assertEquals(count + 3, mapped.getCount());
    assertEquals(used + 5 * MB, mapped.getMemoryUsed());
    engine.close();
    assertEquals(count, mapped.getCount());
    assertEquals(used, mapped.getMemoryUsed());
  }

  private static BufferPoolMXBean pool(String name) {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals(name)) {
        return pool;
      }
    }
    throw new AssertionError("no buffer pool " + name);
  }
}
