/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Every engine configuration the engine tests run over, each opened in a test's temp dir. */
enum EngineKind {
  OFFHEAP {
    @Override
    Engine open(Path dir, long capacity, int slabSize) {
      return new OffHeapEngine(capacity, slabSize);
    }
  },
  FILE {
    @Override
    Engine open(Path dir, long capacity, int slabSize) throws IOException {
      return new FileEngine(List.of(dir.resolve("cache.bin")), capacity, slabSize);
    }
  },
  FILES {
    @Override
    Engine open(Path dir, long capacity, int slabSize) throws IOException {
      return new FileEngine(List.of(dir.resolve("a.bin"), dir.resolve("b.bin")), capacity,
          slabSize);
    }
  },
  MMAP {
    @Override
    Engine open(Path dir, long capacity, int slabSize) throws IOException {
      return new MmapEngine(dir.resolve("cache.mmap"), capacity, slabSize);
    }
  },
  /** Mapped in chunks of two slabs, so ranges land in several mappings. */
  MMAP_CHUNKED {
    @Override
    Engine open(Path dir, long capacity, int slabSize) throws IOException {
      return new MmapEngine(dir.resolve("cache.mmap"), capacity, slabSize, 2 * slabSize);
    }
  };

  abstract Engine open(Path dir, long capacity, int slabSize) throws IOException;
}
