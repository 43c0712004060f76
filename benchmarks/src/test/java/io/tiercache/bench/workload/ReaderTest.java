/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bench.data.BlockLayout;
import io.tiercache.bench.data.BlockSizes;
import io.tiercache.bench.data.Dataset;
import java.nio.file.Path;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.LruBlockCache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link Reader} records of a miss's time ({@link MissTimes}), and only of a miss. */
class ReaderTest {
  private static final int MB = 1 << 20;
  /** Far above what a read of 64 KB from the page cache takes, even with a GC pause in it. */
  private static final long WAIT_NANOS = 20_000_000;

  @Test
  void read_missRecordsItsFetchAndInsert_hitRecordsNothing(@TempDir Path dir) throws Exception {
    BlockLayout layout = new BlockLayout(BlockSizes.FIXED_64K, MB, 2 * MB, 1);
    LruBlockCache cache = new LruBlockCache(8 * MB, 64 * 1024);
    try (Dataset dataset = Dataset.open(layout, dir)) {
      MissTimes times = new MissTimes();
      assertTrue(Double.isNaN(times.fetchNanos(99)) && Double.isNaN(times.insertNanos(50))
          && Double.isNaN(times.meanBytes()), "no miss, no time");
      MissDelay wait = new MissDelay(WAIT_NANOS);

      assertFalse(Reader.read(cache, dataset, 0, wait, times), "the first read misses");
      assertEquals(1, times.misses());
      assertTrue(times.fetchNanos(99) >= WAIT_NANOS,
          "the fetch holds the whole wait: " + times.fetchNanos(99));
      assertFalse(Double.isNaN(times.insertNanos(50)), "the insert is timed too");
      int size0 = blockBytes(dataset, 0);
      assertEquals(size0, times.meanBytes(), "the missed block's bytes");

      assertTrue(Reader.read(cache, dataset, 0, wait, times), "cached by the miss");
      assertEquals(1, times.misses(), "a hit is not a miss's time");
      assertFalse(Reader.read(cache, dataset, 1, MissDelay.NONE, null), "not recorded");
      assertEquals(1, times.misses());

      MissTimes merged = new MissTimes();
      MissTimes other = new MissTimes();
      assertFalse(Reader.read(cache, dataset, 2, MissDelay.NONE, other));
      merged.add(times);
      merged.add(other);
      assertEquals(2, merged.misses());
      assertTrue(merged.fetchNanos(0) < WAIT_NANOS, "the miss without a wait is the faster one");
      assertTrue(merged.fetchNanos(100) >= WAIT_NANOS);
      assertEquals((size0 + blockBytes(dataset, 2)) / 2.0, merged.meanBytes(), 1e-9);
    } finally {
      cache.shutdown();
    }
  }

  private static int blockBytes(Dataset dataset, int id) throws Exception {
    Cacheable block = dataset.read(id);
    try {
      return block.getSerializedLength();
    } finally {
      block.release();
    }
  }
}
