/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import java.util.Arrays;

/**
 * The L2's size classes: the slot sizes a slab can be cut into.
 *
 * <p>By default HBase's fourteen bucket sizes, each a power-of-two-ish block size plus 1 KB of
 * room for the block header and HBase's serialized metadata, and five more below 33 KB where
 * HBase's sizes nearly double ({@code hbase.bucketcache.bucket.sizes}'s default, in
 * {@code CacheSettings}):
 * <pre>
 *   class  size      slots in a 4 MB slab     class  size      slots in a 4 MB slab
 *     0     5 KB       819                     10    49 KB       83
 *     1     7 KB       585                     11    57 KB       71
 *     2     9 KB       455                     12    65 KB       63
 *     3    11 KB       372                     13    97 KB       42
 *     4    14 KB       292                     14   129 KB       31
 *     5    17 KB       240                     15   193 KB       21
 *     6    21 KB       195                     16   257 KB       15
 *     7    27 KB       151                     17   385 KB       10
 *     8    33 KB       124                     18   513 KB        7
 *     9    41 KB        99
 * </pre>
 * Formula: {@code slots(c) = slabSize / size(c)} (rounded down), and a block of {@code n} bytes
 * goes to the smallest class with {@code size(c) >= n}. Operators may set their own sizes with
 * {@code hbase.bucketcache.bucket.sizes}; as in HBase each must be a multiple of 256, and here
 * they must also be strictly increasing and fit a slab.
 *
 * <p>Immutable and thread safe.
 */
public final class SizeClasses {
  private final int[] sizes;
  private final int slabSize;

  /**
   * @throws IllegalArgumentException naming the offending size; callers turn it into a
   *     {@code SettingException} for {@code hbase.bucketcache.bucket.sizes}
   */
  public SizeClasses(int[] sizes, int slabSize) {
    if (sizes.length == 0) {
      throw new IllegalArgumentException("no bucket sizes given");
    }
    if (sizes.length > 255) {
      throw new IllegalArgumentException("at most 255 bucket sizes, got " + sizes.length);
    }
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] <= 0 || sizes[i] % 256 != 0) {
        throw new IllegalArgumentException(
            "bucket size " + sizes[i] + " is not a positive multiple of 256");
      }
      if (i > 0 && sizes[i] <= sizes[i - 1]) {
        throw new IllegalArgumentException("bucket sizes must be strictly increasing, got "
            + sizes[i - 1] + " then " + sizes[i]);
      }
      if (sizes[i] > slabSize) {
        throw new IllegalArgumentException(
            "bucket size " + sizes[i] + " does not fit a slab of " + slabSize + " bytes");
      }
    }
    this.sizes = sizes.clone();
    this.slabSize = slabSize;
  }

  /** Number of classes. */
  public int count() {
    return sizes.length;
  }

  /** Slot size of class {@code c}. */
  public int size(int c) {
    return sizes[c];
  }

  /** Largest block the L2 can hold. */
  public int maxSize() {
    return sizes[sizes.length - 1];
  }

  /** Slots a slab of class {@code c} holds. */
  public int slotsPerSlab(int c) {
    return slabSize / sizes[c];
  }

  /** The smallest class whose slots hold {@code length} bytes, or -1 if none does. */
  public int classOf(int length) {
    if (length <= 0) {
      throw new IllegalArgumentException("block length must be positive, got " + length);
    }
    int i = Arrays.binarySearch(sizes, length);
    if (i >= 0) {
      return i;
    }
    int insertion = -i - 1;
    return insertion < sizes.length ? insertion : -1;
  }

  @Override
  public String toString() {
    return Arrays.toString(sizes);
  }
}
