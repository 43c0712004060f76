/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.core.config.CacheSettings;
import org.junit.jupiter.api.Test;

/** Exhaustive checks of the size-class arithmetic. */
class SizeClassesTest {
  private static final int SLAB = CacheSettings.DEFAULT_SLAB_SIZE;

  @Test
  void classOf_everyLengthUpToMax_isSmallestFittingClass() {
    SizeClasses c = new SizeClasses(CacheSettings.L2_BUCKET_SIZES.defaultValue(), SLAB);
    int expected = 0;
    for (int len = 1; len <= c.maxSize(); len++) {
      while (c.size(expected) < len) {
        expected++;
      }
      assertEquals(expected, c.classOf(len), "length " + len);
    }
    assertEquals(-1, c.classOf(c.maxSize() + 1));
    assertEquals(-1, c.classOf(Integer.MAX_VALUE));
    assertThrows(IllegalArgumentException.class, () -> c.classOf(0));
  }

  @Test
  void slotsPerSlab_matchesTheDocumentedTable() {
    SizeClasses c = new SizeClasses(CacheSettings.L2_BUCKET_SIZES.defaultValue(), SLAB);
    int[] documented = {411, 293, 228, 186, 146, 120, 97, 76, 62, 49, 41, 35, 32, 31, 28, 25,
        23, 21, 18, 16, 14, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3};
    assertEquals(documented.length, c.count());
    for (int i = 0; i < c.count(); i++) {
      assertEquals(documented[i], c.slotsPerSlab(i), "class " + i);
      assertTrue((long) c.slotsPerSlab(i) * c.size(i) <= SLAB);
      assertTrue((long) (c.slotsPerSlab(i) + 1) * c.size(i) > SLAB, "wasted a whole slot");
      assertTrue((long) c.slotsPerSlab(i) * (c.size(i) + 256) > SLAB,
          "class " + i + ": a slot 256 bytes longer would fit as many times");
    }
    assertEquals(701_696, c.size(c.count() - 1), "the largest: 3 slots of 685.25 KB");
    assertEquals(4, c.slotsPerSlab(c.classOf(513 * 1024)), "HBase's largest size: 4 to a slab");
    assertEquals(32, c.slotsPerSlab(c.classOf(64 * 1024 + 256)),
        "a 64 KB block with up to 256 bytes of header, checksums and last cell: 32 to a slab");
  }

  @Test
  void customSizes_everyMultipleOf256_roundTrips() {
    for (int size = 256; size <= 64 * 1024; size += 256) {
      SizeClasses c = new SizeClasses(new int[] {size}, SLAB);
      assertEquals(0, c.classOf(size));
      assertEquals(-1, c.classOf(size + 1));
      assertEquals(SLAB / size, c.slotsPerSlab(0));
    }
  }

  @Test
  void invalidSizes_areRejectedWithReason() {
    assertThrows(IllegalArgumentException.class, () -> new SizeClasses(new int[0], SLAB));
    assertThrows(IllegalArgumentException.class, () -> new SizeClasses(new int[] {1000}, SLAB));
    assertThrows(IllegalArgumentException.class,
        () -> new SizeClasses(new int[] {8192, 4096}, SLAB));
    assertThrows(IllegalArgumentException.class,
        () -> new SizeClasses(new int[] {4096, 4096}, SLAB));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SizeClasses(new int[] {SLAB + 256}, SLAB));
    assertTrue(e.getMessage().contains("does not fit a slab"), e.getMessage());
  }
}
