/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.SettingException;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Opens the engine named by {@code hbase.bucketcache.ioengine}, in HBase's syntax:
 * {@code offheap}, {@code file:PATH}, {@code files:PATH1,PATH2,...}, {@code mmap:PATH}, and any
 * scheme an {@link EngineProvider} on the classpath serves ({@code pmem:PATH} from cache-pmem).
 *
 * <p>Every failure to open, a bad value or an I/O error, is a {@link SettingException} naming
 * the key, the value and what is accepted, so the RegionServer stops at startup with a message
 * an operator can act on.
 */
public final class Engines {
  /** The HBase key whose value {@link #open} parses. */
  public static final String KEY = CacheSettings.L2_IOENGINE.key();

  private static final String ACCEPTED =
      "accepted: offheap, file:PATH, files:PATH1,PATH2,..., mmap:PATH, pmem:PATH";

  private Engines() {}

  /** Opens {@code ioengine} with {@code capacity} bytes in slabs of {@code slabSize} bytes. */
  public static Engine open(String ioengine, long capacity, int slabSize) {
    return open(ioengine, capacity, slabSize, new int[0], Collections.emptyMap());
  }

  /**
   * As {@link #open(String, long, int)}, passing the L2's slot sizes and engine options to a
   * provided engine ({@link EngineProvider#open(String, long, int, int[], Map)}).
   */
  public static Engine open(String ioengine, long capacity, int slabSize, int[] slotSizes,
      Map<String, String> options) {
    return open(ioengine, capacity, slabSize, slotSizes, options,
        Engines.class.getClassLoader());
  }

  /** As {@link #open(String, long, int)}, looking for providers in {@code loader}. */
  static Engine open(String ioengine, long capacity, int slabSize, ClassLoader loader) {
    return open(ioengine, capacity, slabSize, new int[0], Collections.emptyMap(), loader);
  }

  private static Engine open(String ioengine, long capacity, int slabSize, int[] slotSizes,
      Map<String, String> options, ClassLoader loader) {
    String spec = ioengine == null ? "" : ioengine.trim();
    String problem = Slabs.geometryProblem(capacity, slabSize);
    if (problem != null) {
      throw fail("cannot open '" + spec + "': " + problem, null);
    }
    int colon = spec.indexOf(':');
    String scheme = (colon < 0 ? spec : spec.substring(0, colon)).toLowerCase(Locale.ROOT);
    String rest = colon < 0 ? null : spec.substring(colon + 1).trim();
    try {
      switch (scheme) {
        case "offheap":
          if (rest != null) {
            throw fail("'" + spec + "': offheap takes no path; " + ACCEPTED, null);
          }
          return offHeap(capacity, slabSize);
        case "file": // HBase splits file: at commas too, so both accept several paths
        case "files":
          return files(spec, paths(spec, rest), capacity, slabSize);
        case "mmap":
          return new MmapEngine(path(spec, rest), capacity, slabSize);
        case "heap":
          throw fail("'heap' is not an L2 engine (HBase 2 removed it; the L1 is the on-heap "
              + "tier); " + ACCEPTED, null);
        default:
          return provided(spec, scheme, rest, capacity, slabSize, slotSizes, options, loader);
      }
    } catch (IOException e) {
      throw fail("cannot open '" + spec + "': " + e.getMessage(), e);
    }
  }

  private static Engine offHeap(long capacity, int slabSize) {
    try {
      return new OffHeapEngine(capacity, slabSize);
    } catch (OutOfMemoryError e) {
      throw fail("offheap: cannot allocate " + capacity + " bytes of direct memory; raise "
          + "-XX:MaxDirectMemorySize (HBASE_OFFHEAPSIZE) or lower hbase.bucketcache.size", e);
    }
  }

  private static Engine files(String spec, List<Path> paths, long capacity, int slabSize)
      throws IOException {
    if (paths.size() > capacity / slabSize) {
      throw fail("'" + spec + "' names " + paths.size() + " files for " + capacity / slabSize
          + " slabs of " + slabSize + " bytes; each file needs at least one slab", null);
    }
    return new FileEngine(paths, capacity, slabSize);
  }

  private static Engine provided(String spec, String scheme, String rest, long capacity,
      int slabSize, int[] slotSizes, Map<String, String> options, ClassLoader loader)
      throws IOException {
    EngineProvider provider = provider(scheme, loader);
    if (provider != null) {
      String path = path(spec, rest).toString();
      return slotSizes.length == 0 && options.isEmpty()
          ? provider.open(path, capacity, slabSize)
          : provider.open(path, capacity, slabSize, slotSizes, options);
    }
    if (scheme.equals("pmem")) {
      throw fail("'" + spec + "' needs the cache-pmem module: add the cache-pmem jar (with its "
          + "LLPL dependency) to the RegionServer classpath, e.g. via HBASE_CLASSPATH", null);
    }
    String what = scheme.isEmpty() ? "no engine given" : "unknown engine '" + spec + "'";
    throw fail(what + "; " + ACCEPTED, null);
  }

  private static EngineProvider provider(String scheme, ClassLoader loader) {
    if (scheme.isEmpty()) {
      return null;
    }
    try {
      for (EngineProvider provider : ServiceLoader.load(EngineProvider.class, loader)) {
        if (scheme.equalsIgnoreCase(provider.scheme())) {
          return provider;
        }
      }
      return null;
    } catch (ServiceConfigurationError e) {
      throw fail("cannot load the engine providers for '" + scheme + "': " + e.getMessage(), e);
    }
  }

  private static List<Path> paths(String spec, String rest) {
    List<Path> paths = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    for (String part : (rest == null ? "" : rest).split(",", -1)) {
      Path path = path(spec, part.trim());
      if (!seen.add(path.toAbsolutePath().normalize())) {
        throw fail("'" + spec + "' names " + path + " twice", null);
      }
      paths.add(path);
    }
    return paths;
  }

  private static Path path(String spec, String rest) {
    if (rest == null || rest.isEmpty()) {
      throw fail("'" + spec + "' has an empty path; " + ACCEPTED, null);
    }
    try {
      return Paths.get(rest);
    } catch (InvalidPathException e) {
      throw fail("'" + spec + "': " + e.getMessage(), e);
    }
  }

  private static SettingException fail(String message, Throwable cause) {
    SettingException e = new SettingException(KEY, message);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }
}
