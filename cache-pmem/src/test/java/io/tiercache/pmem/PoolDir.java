/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A scratch directory for pool files on emulated pmem: tmpfs ({@code /dev/shm}, set by the
 * surefire configuration as {@code tiercache.pmem.test.dir}), else the temp directory.
 */
final class PoolDir implements AutoCloseable {
  final Path dir;

  PoolDir() {
    try {
      Path parent = Paths.get(System.getProperty("tiercache.pmem.test.dir",
          System.getProperty("java.io.tmpdir")));
      if (!Files.isDirectory(parent) || !Files.isWritable(parent)) {
        parent = Paths.get(System.getProperty("java.io.tmpdir"));
      }
      dir = Files.createTempDirectory(parent, "tiercache-pmem-test-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path resolve(String name) {
    return dir.resolve(name);
  }

  @Override
  public void close() {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
