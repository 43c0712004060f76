/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import io.tiercache.core.config.CacheSettings;

/**
 * Slab geometry shared by the engines: which capacities and slab sizes are valid, and the range
 * check every {@code view}, {@code read} and {@code write} runs before it touches memory.
 */
final class Slabs {
  /** Slabs are whole pages ({@link CacheSettings#SLAB_PAGE}). */
  static final int PAGE = CacheSettings.SLAB_PAGE;

  private Slabs() {}

  /** Returns why {@code (capacity, slabSize)} is unusable, or {@code null} if it is valid. */
  static String geometryProblem(long capacity, int slabSize) {
    if (slabSize <= 0 || slabSize % PAGE != 0) {
      return "slab size " + slabSize + " is not a positive multiple of " + PAGE;
    }
    if (capacity <= 0 || capacity % slabSize != 0) {
      return "capacity " + capacity + " (hbase.bucketcache.size) is not a positive multiple of "
          + "the slab size " + slabSize;
    }
    if (capacity / slabSize > Integer.MAX_VALUE) {
      return "capacity " + capacity + " needs more than " + Integer.MAX_VALUE + " slabs of "
          + slabSize + " bytes";
    }
    return null;
  }

  /** Throws {@link IllegalArgumentException} unless the geometry is valid; for constructors. */
  static void checkGeometry(long capacity, int slabSize) {
    String problem = geometryProblem(capacity, slabSize);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  /**
   * Checks that {@code [address, address + length)} lies inside the engine and inside one slab.
   *
   * @throws IndexOutOfBoundsException if the range is negative or goes beyond the capacity
   * @throws IllegalArgumentException if the range crosses a slab boundary
   */
  static void checkRange(long address, int length, long capacity, int slabSize) {
    if (address < 0 || length < 0 || address > capacity - length) {
      throw new IndexOutOfBoundsException(
          "range [" + address + ", " + address + " + " + length + ") outside [0, " + capacity
              + ")");
    }
    if (length > 0 && address / slabSize != (address + length - 1) / slabSize) {
      throw new IllegalArgumentException("range [" + address + ", " + address + " + " + length
          + ") crosses a boundary of the " + slabSize + "-byte slabs");
    }
  }
}
