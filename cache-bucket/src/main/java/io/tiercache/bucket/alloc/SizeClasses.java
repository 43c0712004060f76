/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import java.util.Arrays;

/**
 * The L2's size classes: the slot sizes a slab can be cut into.
 *
 * <p>By default 31 sizes ({@code hbase.bucketcache.bucket.sizes}'s default, in
 * {@code CacheSettings}): for each slot count per slab of the default size (2056 KB), the
 * longest multiple of 256 that many slots fit in. Up to 66.25 KB they are HBase's bucket sizes
 * (each a power-of-two-ish block size plus about 1 KB of room for the block header and HBase's
 * serialized metadata; 41, 49, 57 and 65 KB 768 to 1,536 bytes longer), 64.25 KB for 64 KB data
 * blocks (32 to a slab) and five more below 33 KB where HBase's nearly double; above it they
 * step by 1.09 to 1.25 (1.33 to the last), not HBase's 1.33 to 1.5:
 * <pre>
 *   class  size      slots in a slab          class  size      slots in a slab
 *      0   5 KB        411                    16   89.25 KB     23
 *      1   7 KB        293                    17   97.75 KB     21
 *      2   9 KB        228                    18   114 KB       18
 *      3   11 KB       186                    19   128.5 KB     16
 *      4   14 KB       146                    20   146.75 KB    14
 *      5   17 KB       120                    21   171.25 KB    12
 *      6   21 KB        97                    22   186.75 KB    11
 *      7   27 KB        76                    23   205.5 KB     10
 *      8   33 KB        62                    24   228.25 KB     9
 *      9   41.75 KB     49                    25   257 KB        8
 *     10   50 KB        41                    26   293.5 KB      7
 *     11   58.5 KB      35                    27   342.5 KB      6
 *     12   64.25 KB     32                    28   411 KB        5
 *     13   66.25 KB     31                    29   514 KB        4
 *     14   73.25 KB     28                    30   685.25 KB     3
 *     15   82 KB        25
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
