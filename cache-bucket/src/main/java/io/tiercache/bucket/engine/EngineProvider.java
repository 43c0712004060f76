/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.IOException;

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
   * the slab size, and the slab size a power of two.
   *
   * @throws IOException if the storage cannot be opened; the factory reports it as a setting
   *     error naming the path
   */
  Engine open(String path, long capacity, int slabSize) throws IOException;
}
