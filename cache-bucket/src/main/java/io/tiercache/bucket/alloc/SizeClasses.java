/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import java.util.Arrays;

/**
 * The L2's size classes: the slot sizes a slab can be cut into.
 *
 * <p>By default 32 sizes ({@code hbase.bucketcache.bucket.sizes}'s default, in
 * {@code CacheSettings}): for each slot count per 4 MB slab, the longest multiple of 256 that
 * many slots fit in. Up to 65 KB they are HBase's bucket sizes (each a power-of-two-ish block
 * size plus 1 KB of room for the block header and HBase's serialized metadata; 41, 49 and 57 KB
 * 256 or 512 bytes longer) and five more below 33 KB where HBase's nearly double; above it
 * they step by 1.09 to 1.17, not HBase's 1.33 to 1.5:
 * <pre>
 *   class  size      slots in a 4 MB slab     class  size      slots in a 4 MB slab
 *     0   5 KB       819                    16   97.5 KB     42
 *     1   7 KB       585                    17   113.75 KB   36
 *     2   9 KB       455                    18   132 KB      31
 *     3   11 KB      372                    19   146.25 KB   28
 *     4   14 KB      292                    20   163.75 KB   25
 *     5   17 KB      240                    21   178 KB      23
 *     6   21 KB      195                    22   195 KB      21
 *     7   27 KB      151                    23   227.5 KB    18
 *     8   33 KB      124                    24   256 KB      16
 *     9   41.25 KB    99                    25   292.5 KB    14
 *    10   49.25 KB    83                    26   341.25 KB   12
 *    11   57.5 KB     71                    27   372.25 KB   11
 *    12   65 KB       63                    28   409.5 KB    10
 *    13   73 KB       56                    29   455 KB       9
 *    14   81.75 KB    50                    30   512 KB       8
 *    15   89 KB       46                    31   585 KB       7
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
