/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.contract.TestBlocks;
import io.tiercache.lru.LruTier;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A seeded randomized stress of {@link TieredBlockCache} in every mode on every L2 engine
 * (offheap, file, files, mmap, pmem): four threads cache (heap and pooled blocks, in-memory or
 * not, queued or waiting), read (every hit checked byte for byte; some blocks held across later
 * operations), evict blocks, files and offset ranges of files, and resize the L1 (bursts of
 * demotions in exclusive mode); promotions come with the reads. A small L1 and L2 keep both tiers evicting and the L2's slabs moving between size
 * classes. Phase one ends with the invariants checked; in phase two one thread shuts the cache
 * down while the others go on. At the end every held block is released and the leak check runs:
 * nothing cached, every L2 slot free, every pooled buffer back in its pool.
 *
 * <p>CI runs a bounded number of operations per case; {@code -Dstress.minutes=N} runs the cases
 * for N minutes in all instead (N divided evenly among them). Seed: {@code -Dtiercache.test.seed=N}.
 */
class TieredBlockCacheStressTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261124L);
  /**
   * {@code -Dstress.minutes=N}: the whole run's length, shared evenly by the cases (every mode on
   * every engine), so {@code N=30} is half an hour of stress in all; 0 (CI) runs a fixed count.
   */
  private static final double TOTAL_MINUTES = Double.parseDouble(
      System.getProperty("stress.minutes", "0"));
  private static final double MINUTES = TOTAL_MINUTES / cases().count();
  private static final int THREADS = 4;
  private static final int OPS = 2_500; // per thread and phase, when not run for minutes
  private static final int FILES = 6;
  private static final int OFFSETS = 48;
  private static final int[] PAYLOADS = {3_000, 9_000, 20_000, 40_000};

  @TempDir
  Path dir;

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (TieringMode mode : TieringMode.values()) {
      for (String engine : new String[] {"offheap", "file", "files", "mmap", "pmem"}) {
        out.add(Arguments.of(mode, engine, HotPromotion.MOVE)); // hot: move, the default
      }
    }
    out.add(Arguments.of(TieringMode.HOT, "offheap", HotPromotion.COPY));
    out.add(Arguments.of(TieringMode.HOT, "offheap", HotPromotion.MOVE_ON_HIT));
    out.add(Arguments.of(TieringMode.HOT, "file", HotPromotion.MOVE_ON_HIT));
    return out.stream();
  }

  private String spec(String engine) {
    switch (engine) {
      case "offheap":
        return "offheap";
      case "files":
        return "files:" + dir.resolve("l2a.cache") + "," + dir.resolve("l2b.cache");
      case "pmem":
        return "pmem:" + dir.resolve("l2.pmem");
      default:
        return engine + ":" + dir.resolve("l2.cache");
    }
  }

  private static BlockCacheKey key(int file, int slot) {
    return TestBlocks.key("stress-" + file, slot * 100_000L, typeOf(file, slot));
  }

  private static BlockType typeOf(int file, int slot) {
    int t = (file * 31 + slot) % 10;
    return t == 0 ? BlockType.LEAF_INDEX : t == 1 ? BlockType.BLOOM_CHUNK : BlockType.DATA;
  }

  private static int payloadOf(int file, int slot) {
    return PAYLOADS[(file * 7 + slot * 3) % PAYLOADS.length];
  }

  @ParameterizedTest
  @MethodSource("cases")
  void randomOpsInEveryMode_neverAWrongByte_nothingLeaksAfterShutdown(TieringMode mode,
      String engine, HotPromotion promotion) throws Exception {
    ByteBuffAllocator pool = TestBlocks.pooledAllocator(512);
    LruTier l1 = LruTier.builder().maxSize(1 << 20).blockSizeHint(16 * 1024).build();
    BucketTier l2 = BucketTier.builder()
        .ioEngine(spec(engine))
        .capacity(4 << 20).slabSize(1 << 20).writers(2, 4).buffers(pool).build();
    TieredBlockCache cache =
        new TieredBlockCache(l1, l2, mode, 1 + (int) (SEED & 1), promotion);
    String where = "mode " + mode.key()
        + (mode == TieringMode.HOT ? " (" + promotion.key() + ")" : "") + ", engine " + engine
        + ", seed " + SEED;
    LongAdder ops = new LongAdder();
    LongAdder hits = new LongAdder();
    List<ArrayDeque<Cacheable>> held = new ArrayList<>();
    for (int w = 0; w < THREADS; w++) {
      held.add(new ArrayDeque<>());
    }
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    AtomicBoolean shutDown = new AtomicBoolean();
    try {
      for (int phase = 0; phase < 2; phase++) {
        long deadline = System.nanoTime() + (long) (MINUTES * 60e9 / 2);
        List<Future<?>> work = new ArrayList<>();
        for (int w = 0; w < THREADS; w++) {
          long seed = SEED * 1_000_003L + phase * 31L + w + mode.ordinal() * 7L
              + engine.hashCode();
          int worker = w;
          boolean shutter = phase == 1 && w == 0;
          work.add(threads.submit(() -> {
            run(cache, pool, new SplittableRandom(seed), held.get(worker), deadline, shutter,
                shutDown, ops, hits, where + ", worker seed " + seed);
            return null;
          }));
        }
        for (Future<?> f : work) {
          f.get(MINUTES > 0 ? (long) (MINUTES * 60) + 300 : 300, TimeUnit.SECONDS);
        }
        if (phase == 0) {
          l2.flush(30_000);
          cache.checkInvariants();
        }
      }
    } finally {
      threads.shutdownNow();
      cache.shutdown();
      for (ArrayDeque<Cacheable> h : held) {
        h.forEach(Cacheable::release);
        h.clear();
      }
    }
    System.out.printf("stress %s: %d ops, %d hits checked byte for byte, L1 %s, L2 %s, "
        + "L2 checksum drops %d%n", where, ops.sum(), hits.sum(), l1.getStats(), l2.getStats(),
        l2.checksumFailures());
    assertEquals(0, l1.getBlockCount(), "L1 blocks after shutdown (" + where + ")");
    assertEquals(0, l2.getBlockCount(), "L2 blocks after shutdown (" + where + ")");
    assertEquals(l2.getMaxSize(), l2.getFreeSize(),
        "L2 slots still in use after shutdown and every release (" + where + ")");
    assertEquals(pool.getUsedBufferCount(), pool.getFreeBufferCount(),
        "pooled buffers not returned (" + where + ")");
    assertEquals(0, l2.checksumFailures(), "a checksum failure means a slot was overwritten "
        + "under a reader (" + where + ")");
  }

  private static void run(TieredBlockCache cache, ByteBuffAllocator pool, SplittableRandom rnd,
      ArrayDeque<Cacheable> held, long deadline, boolean shutter, AtomicBoolean shutDown,
      LongAdder ops, LongAdder hits, String where) {
    int shutAt = shutter ? OPS / 4 + rnd.nextInt(OPS / 2) : -1;
    for (int op = 0; MINUTES > 0 ? System.nanoTime() - deadline < 0 : op < OPS; op++) {
      if (op == shutAt || (shutter && MINUTES > 0 && op > 0 && shutAt < 0
          && System.nanoTime() - deadline > -(long) (MINUTES * 60e9 / 4))) {
        shutAt = op;
        cache.shutdown();
        shutDown.set(true);
      }
      int file = rnd.nextInt(FILES);
      int slot = rnd.nextInt(OFFSETS);
      BlockCacheKey key = key(file, slot);
      int dice = rnd.nextInt(1000);
      if (dice < 500) {
        Cacheable got = cache.getBlock(key, true, false, true);
        if (got != null) {
          try {
            TestBlocks.assertBlock(key, payloadOf(file, slot), key.getBlockType(), got);
          } catch (AssertionError e) {
            got.release();
            throw new AssertionError("wrong bytes for " + key + " (" + where + ", op " + op
                + ")", e);
          }
          hits.increment();
          held.addLast(got);
          if (held.size() > rnd.nextInt(6)) {
            held.removeFirst().release();
          }
        }
      } else if (dice < 900) {
        HFileBlock block = rnd.nextBoolean()
            ? TestBlocks.heap(key.getHfileName(), key.getOffset(), payloadOf(file, slot),
                key.getBlockType())
            : TestBlocks.pooled(pool, key.getHfileName(), key.getOffset(),
                payloadOf(file, slot), key.getBlockType());
        try {
          cache.cacheBlock(key, block, rnd.nextInt(8) == 0, rnd.nextInt(10) == 0);
        } finally {
          block.release();
        }
      } else if (dice < 960) {
        cache.evictBlock(key);
      } else if (dice < 975) {
        cache.evictBlocksByHfileName(key.getHfileName());
      } else if (dice < 985) { // a split or merge keeping part of a file
        long from = rnd.nextInt(OFFSETS) * 100_000L;
        cache.evictBlocksRangeByHfileName(key.getHfileName(), from,
            from + rnd.nextInt(OFFSETS / 4) * 100_000L);
      } else if (!shutDown.get()) {
        cache.setMaxSize((1 + rnd.nextInt(4)) * (512L << 10));
      }
      ops.increment();
    }
  }
}
