/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.IOException;
import java.util.Map;

/**
 * A storage engine that another jar adds under its own scheme, found with
 * {@link java.util.ServiceLoader}: the jar lists its class in
 * {@code META-INF/services/io.tiercache.bucket.engine.EngineProvider}. This is how
 * {@code cache-pmem} serves {@code pmem:PATH} without cache-bucket depending on it.
 *
 * <p>Implementations have a public no-argument constructor and are stateless.
 */
public interface EngineProvider {
  /** The scheme this provider serves, lower case, without the colon, e.g. {@code pmem}. */
  String scheme();

  /**
   * Opens the engine for {@code scheme:path}. The capacity is already a positive multiple of
   * the slab size, and the slab size a positive multiple of 4096 (whole pages).
   *
   * @throws IOException if the storage cannot be opened; the factory reports it as a setting
   *     error naming the path
   */
  Engine open(String path, long capacity, int slabSize) throws IOException;

  /**
   * Opens the engine knowing the L2's slot sizes ({@code hbase.bucketcache.bucket.sizes}, in
   * class order) and its engine options (the {@code tiercache.*} engine keys, as text, e.g.
   * {@code tiercache.pmem.backend}); an engine that keeps a {@link DurableIndex} lays it out by
   * slot sizes and checks a reopened store against them. The L2 calls this method; the default
   * ignores both and calls {@link #open(String, long, int)}.
   */
  default Engine open(String path, long capacity, int slabSize, int[] slotSizes,
      Map<String, String> options) throws IOException {
    return open(path, capacity, slabSize);
  }
}
