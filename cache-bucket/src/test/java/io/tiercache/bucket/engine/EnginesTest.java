/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.config.SettingException;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Engines#open}: HBase's ioengine syntax, providers, and the errors an operator sees. */
class EnginesTest {
  private static final int SLAB = 64 * 1024;
  private static final long CAPACITY = 4L * SLAB;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"offheap", " OffHeap "})
  void open_offheap_opensOffHeapEngine(String spec) throws IOException {
    try (Engine engine = Engines.open(spec, CAPACITY, SLAB)) {
      assertInstanceOf(OffHeapEngine.class, engine);
      assertEquals("offheap", engine.describe());
    }
  }

  @Test
  void open_fileSpec_opensFileEngineOnThatPath() throws IOException {
    Path path = dir.resolve("cache.bin");
    try (Engine engine = Engines.open("file:" + path, CAPACITY, SLAB)) {
      assertInstanceOf(FileEngine.class, engine);
      assertEquals("file:" + path, engine.describe());
      assertEquals(CAPACITY, Files.size(path));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"files:", "file:"}) // HBase splits file: at commas too
  void open_twoPaths_opensFileEngineOverBoth(String scheme) throws IOException {
    Path a = dir.resolve("a.bin");
    Path b = dir.resolve("b.bin");
    try (Engine engine = Engines.open(scheme + a + " , " + b, CAPACITY, SLAB)) {
      assertInstanceOf(FileEngine.class, engine);
      assertEquals("files:" + a + "," + b, engine.describe());
      assertEquals(CAPACITY, Files.size(a) + Files.size(b));
    }
  }

  @Test
  void open_mmapSpec_opensMmapEngine() throws IOException {
    Path path = dir.resolve("cache.mmap");
    try (Engine engine = Engines.open("mmap:" + path, CAPACITY, SLAB)) {
      assertInstanceOf(MmapEngine.class, engine);
      assertEquals("mmap:" + path, engine.describe());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  ", "bogus", "nvme:/x", "file:", "files:", "mmap:", "file: ",
      "files:a,,b", "offheap:/x", ":offheap"})
  void open_badSpec_throwsSettingExceptionListingAccepted(String spec) {
    SettingException e = assertFails(spec, CAPACITY, SLAB);
    assertTrue(e.getMessage().contains("accepted: offheap, file:PATH"), e.getMessage());
  }

  @Test
  void open_nullSpec_throwsSettingException() {
    assertFails(null, CAPACITY, SLAB);
  }

  @Test
  void open_heap_explainsItIsNotAnL2Engine() {
    assertTrue(assertFails("heap", CAPACITY, SLAB).getMessage().contains("'heap' is not"));
  }

  @ParameterizedTest
  @CsvSource({"0, 65536", "-65536, 65536", "100000, 65536", "262144, 3", "262144, 0",
      "262144, -8"})
  void open_badGeometry_throwsSettingExceptionNamingValues(long capacity, int slabSize) {
    SettingException e = assertFails("offheap", capacity, slabSize);
    assertTrue(e.getMessage().contains(Long.toString(capacity))
        || e.getMessage().contains("slab size " + slabSize), e.getMessage());
  }

  @Test
  void open_pmemWithoutProvider_tellsToAddCachePmemJar() {
    assertTrue(assertFails("pmem:/mnt/pmem0/cache", CAPACITY, SLAB).getMessage()
        .contains("add the cache-pmem jar"));
  }

  @Test
  void open_pmemWithProvider_delegatesToProvider() throws IOException {
    try (URLClassLoader loader = loaderWithProviders();
        Engine engine = Engines.open("pmem:/mnt/pmem0/cache", CAPACITY, SLAB, loader)) {
      assertInstanceOf(OffHeapEngine.class, engine);
      assertEquals("/mnt/pmem0/cache", FakePmemProvider.lastPath.get());
    }
  }

  @Test
  void open_providerThrowsIOException_throwsSettingExceptionWithCause() throws IOException {
    try (URLClassLoader loader = loaderWithProviders()) {
      SettingException e = assertThrows(SettingException.class,
          () -> Engines.open("broken:/dev/dax0", CAPACITY, SLAB, loader));
      assertEquals(Engines.KEY, e.key());
      assertTrue(e.getMessage().contains("device gone"), e.getMessage());
      assertInstanceOf(IOException.class, e.getCause());
    }
  }

  @Test
  void open_fileInMissingDirectory_throwsSettingExceptionNamingPath() {
    Path path = dir.resolve("missing").resolve("cache.bin");
    SettingException e = assertFails("files:" + dir.resolve("ok.bin") + "," + path, CAPACITY,
        SLAB);
    assertTrue(e.getMessage().contains("cannot open " + path), e.getMessage());
    assertInstanceOf(IOException.class, e.getCause());
  }

  @Test
  void open_pathIsDirectory_throwsSettingException() {
    assertInstanceOf(IOException.class, assertFails("mmap:" + dir, CAPACITY, SLAB).getCause());
  }

  @Test
  void open_sameFileTwice_throwsSettingException() {
    Path a = dir.resolve("a.bin");
    assertTrue(assertFails("files:" + a + "," + dir.resolve(".").resolve("a.bin"), CAPACITY,
        SLAB).getMessage().contains("twice"));
  }

  @Test
  void open_moreFilesThanSlabs_throwsSettingException() {
    String spec = "files:" + dir.resolve("a") + "," + dir.resolve("b");
    assertTrue(assertFails(spec, SLAB, SLAB).getMessage().contains("at least one slab"));
  }

  private static SettingException assertFails(String spec, long capacity, int slabSize) {
    SettingException e = assertThrows(SettingException.class,
        () -> Engines.open(spec, capacity, slabSize).close());
    assertEquals(Engines.KEY, e.key());
    assertTrue(e.getMessage().startsWith(Engines.KEY + ": "), e.getMessage());
    return e;
  }

  /** A loader that lists the fake providers below, as a plugin jar's services file would. */
  private URLClassLoader loaderWithProviders() throws IOException {
    Path services = dir.resolve("META-INF/services/" + EngineProvider.class.getName());
    Files.createDirectories(services.getParent());
    Files.writeString(services, FakePmemProvider.class.getName() + "\n"
        + BrokenProvider.class.getName() + "\n");
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
  }

  /** Serves {@code pmem:} from off-heap memory and remembers the path it was given. */
  public static final class FakePmemProvider implements EngineProvider {
    static final AtomicReference<String> lastPath = new AtomicReference<>();

    @Override
    public String scheme() {
      return "pmem";
    }

    @Override
    public Engine open(String path, long capacity, int slabSize) {
      lastPath.set(path);
      return new OffHeapEngine(capacity, slabSize);
    }
  }

  /** Serves {@code broken:} and always fails, like a missing DAX device. */
  public static final class BrokenProvider implements EngineProvider {
    @Override
    public String scheme() {
      return "broken";
    }

    @Override
    public Engine open(String path, long capacity, int slabSize) throws IOException {
      throw new IOException(path + ": device gone");
    }
  }
}
