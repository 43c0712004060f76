/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Slot records are allocated lazily (issue 15: building a tier costs the same at any size): a new
 * allocator holds none; a slab gets its records at its first use (insert or restore claim) or
 * from the background pass, which stops when told to; each slab's records are allocated once.
 */
class SlabRecordsTest {
  private static final int KB = 1024;
  private static final int MB = 1 << 20;
  private static final long RECORDS_PER_SLAB = (MB / (16 * KB)) * (long) Slab.RECORD;

  private static SlabAllocator allocator(int slabCount) {
    return new SlabAllocator(new SizeClasses(new int[] {16 * KB, 64 * KB}, MB),
        (long) slabCount * MB, MB);
  }

  @Test
  void records_allocatedAtFirstUseOrByTheBackgroundPass_onceEach() {
    SlabAllocator a = allocator(8);
    assertEquals(0, a.recordBytes(), "a new allocator holds no records");
    long h = a.allocate(1);
    assertNotEquals(Handles.NONE, h);
    assertEquals(RECORDS_PER_SLAB, a.recordBytes(), "the first slab used has its records");
    assertTrue(a.restore(Handles.of(5, 3), 0), "a restore claim in a fresh slab");
    assertEquals(2 * RECORDS_PER_SLAB, a.recordBytes());
    AtomicInteger asked = new AtomicInteger();
    assertEquals(0, a.allocateRecords(() -> asked.incrementAndGet() > 3));
    assertEquals(4 * RECORDS_PER_SLAB, a.recordBytes(),
        "the pass stopped after three slabs (one of which had its records)");
    assertEquals(0, a.allocateRecords(() -> false));
    assertEquals(8 * RECORDS_PER_SLAB, a.recordBytes(), "every slab, each once");
    assertEquals(0, a.allocateRecords(() -> false));
    assertEquals(8 * RECORDS_PER_SLAB, a.recordBytes(), "a second pass allocates nothing");
    assertEquals(0, a.state(Handles.of(5, 4)), "a claimed slab's other slots are free");
  }
}
