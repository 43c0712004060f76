/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.Engines;
import io.tiercache.bucket.index.BlockIndex;
import io.tiercache.core.contract.TestBlocks;
import io.tiercache.core.stats.TierStats;
import java.io.IOException;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A slab drain (rebalancing) that coincides with a write in flight into that slab (issue 13,
 * finding 1). Each test runs, in one thread and so deterministically, what a writer and a drainer
 * do in the order the race would interleave them: the writer's steps are BucketTier.write's
 * (allocate, write the bytes, publish, free the slot if not published), the drainer's are
 * BlockStore.allocate's (reclaim, evict each listed slot).
 *
 * <p>Before the fix, a slot allocated but not yet published was listed by the drain, its eviction
 * found nothing in the index, its writer then published into the draining slab, CLOCK skips
 * draining slabs, and so the slab never emptied: the one drain allowed at a time never ended and
 * a class without a slab could never cache a block again.
 */
class SlabDrainRaceTest {
  private static final int KB = 1024;
  private static final int SLAB = 64 * KB;
  private static final int SMALL = 0; // 16 KB slots, 4 per slab
  private static final int LARGE = 1; // 64 KB slots, 1 per slab
  private static final int SMALL_PAYLOAD = 12 * KB;
  private static final int LARGE_PAYLOAD = 60 * KB;

  private Engine engine;
  private SlabAllocator slabs;
  private BlockStore store;
  private BlockCodec codec;

  /** One slab: a large block needs the slab the small blocks hold, so it must drain it. */
  @BeforeEach
  void open() {
    engine = Engines.open("offheap", SLAB, SLAB);
    slabs = new SlabAllocator(new SizeClasses(new int[] {16 * KB, 64 * KB}, SLAB), SLAB, SLAB);
    store = new BlockStore(slabs, new BlockIndex(1 << 10,
        slabs.classes().slotsPerSlab(0), BlockStore.slots(slabs)), new TierStats("drain"), null);
    codec = new BlockCodec(engine, ByteBuffAllocator.HEAP, true);
  }

  @AfterEach
  void close() throws IOException {
    engine.close();
  }

  private static BlockCacheKey key(String file) {
    return TestBlocks.key(file, 0, BlockType.DATA);
  }

  private static int payloadOf(int sizeClass) {
    return sizeClass == SMALL ? SMALL_PAYLOAD : LARGE_PAYLOAD;
  }

  /** A writer between its allocation and its publication: slot taken, bytes written. */
  private final class InFlight {
    final String file;
    final long h;
    final int length;
    final int checksum;

    InFlight(String file, int sizeClass) throws IOException {
      this.file = file;
      this.h = store.allocate(sizeClass);
      assertNotEquals(Handles.NONE, h, "no slot for " + file);
      HFileBlock block = TestBlocks.heap(file, 0, payloadOf(sizeClass), BlockType.DATA);
      try {
        this.length = block.getSerializedLength();
        this.checksum = codec.write(block, slabs.address(h), length);
      } finally {
        block.release();
      }
    }

    /** Publishes as BucketTier.write does; frees the slot if publication is refused. */
    boolean publish(BooleanSupplier stillWanted) {
      boolean published = store.publish(key(file), BlockCodec.written(h,
          TestBlocks.heap(file, 0, 1, BlockType.DATA), length, checksum, false, true),
          stillWanted);
      if (!published) {
        slabs.free(h);
      }
      return published;
    }
  }

  private void cache(String file, int sizeClass) throws IOException {
    assertTrue(new InFlight(file, sizeClass).publish(() -> true), file + " published");
  }

  private void assertCached(String file, int sizeClass) throws IOException {
    long h = store.pin(key(file));
    assertNotEquals(Handles.NONE, h, file + " is not cached");
    Cacheable block = codec.read(h, slabs, () -> slabs.unpin(h));
    assertNotNull(block, file + " failed its checksum");
    TestBlocks.assertBlock(key(file), payloadOf(sizeClass), BlockType.DATA, block);
    block.release();
  }

  @Test
  void drain_ofSlabWithWriteInFlight_finishesAndTheNeedyClassCachesAgain() throws IOException {
    cache("small-1", SMALL);
    cache("small-2", SMALL);
    InFlight writer = new InFlight("small-3", SMALL); // allocated, written, not yet published

    // The drainer: a large block needs the only slab. Its drain evicts what is published; the
    // writer's slot stays allocated, so no slot is free yet.
    assertEquals(Handles.NONE, store.allocate(LARGE), "the writer still holds a slot");

    // The writer publishes into the draining slab: refused, and the slot freed.
    writer.publish(() -> true);

    // Rebalancing is not wedged: the slab is free again and the large class caches blocks.
    cache("large-1", LARGE);
    assertCached("large-1", LARGE);
    store.checkInvariants(SLAB);
    cache("large-2", LARGE); // evicts large-1 by CLOCK in its own class
    assertCached("large-2", LARGE);
    // and the small class can take the slab back by draining again.
    for (int i = 0; i < 8; i++) {
      cache("small-again-" + i, SMALL);
    }
    assertCached("small-again-7", SMALL);
    store.checkInvariants(SLAB);
  }

  @Test
  void drain_startingWhileWriterPublishes_listsTheSlotAndEvictsItAfterPublication()
      throws IOException {
    cache("small-1", SMALL);
    InFlight writer = new InFlight("small-2", SMALL);
    SlabAllocator.Reclaim[] drain = new SlabAllocator.Reclaim[1];
    // The drain starts while the writer holds the key's lock, after its slot is marked
    // published: it must list the slot, and (in another thread it would wait on the stripe
    // lock) evict it only once the index holds it.
    assertTrue(writer.publish(() -> {
      drain[0] = slabs.reclaim(LARGE);
      return true;
    }));
    assertNotNull(drain[0]);
    assertTrue(drain[0].rebalance);
    assertEquals(2, drain[0].victims.length, "both published slots are listed");
    assertTrue(java.util.Arrays.stream(drain[0].victims).anyMatch(v -> v == writer.h));
    for (long v : drain[0].victims) {
      store.evict(v, true);
    }
    assertEquals(0, store.blocks());
    cache("large-1", LARGE);
    assertCached("large-1", LARGE);
    store.checkInvariants(SLAB);
  }

  /**
   * The same publication window met by shutdown: a writer (here, the caller's thread with
   * {@code waitWhenCache}) that passed its checks publishes after {@code clear()} read the index.
   * Before the fix the block entered the index after shutdown, its slot never freed.
   */
  @Test
  void clear_whileWriterPublishes_leavesNothingIndexedAndEverySlotFree() throws IOException {
    cache("small-1", SMALL);
    InFlight writer = new InFlight("small-2", SMALL);
    writer.publish(() -> {
      store.clear(); // shutdown, between the writer's checks and its index update
      return true;
    });
    assertEquals(0, store.blocks(), "nothing is indexed after clear()");
    assertEquals(0, slabs.usedSlotBytes(), "every slot is free after clear()");
    store.checkInvariants(SLAB);
  }

  @Test
  void drain_whileWriterIsRefusedForAnotherReason_stillFinishes() throws IOException {
    cache("small-1", SMALL);
    InFlight writer = new InFlight("small-2", SMALL);
    SlabAllocator.Reclaim[] drain = new SlabAllocator.Reclaim[1];
    // The block was evicted while it was written (stillWanted false) and a drain started in that
    // window: the writer frees the slot, the drain evicts the rest.
    assertFalse(writer.publish(() -> {
      drain[0] = slabs.reclaim(LARGE);
      return false;
    }));
    for (long v : drain[0].victims) {
      store.evict(v, true);
    }
    cache("large-1", LARGE);
    assertCached("large-1", LARGE);
    assertArrayEquals(new long[0], store.index.blockOffsets("small-2"), "no registry entry is left");
    store.checkInvariants(SLAB);
  }
}
