/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.scale;

import io.tiercache.bench.subject.Writes;
import io.tiercache.bucket.BucketTier;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.Cacheable;

/**
 * One subject at one block count, in the parent JVM: fill, churn (measured), clean restart
 * (measured), then the SIGKILL round ({@link ScaleKill}). Every block served is verified.
 *
 * <p>The churn: one thread inserts new blocks at {@code rate} per second into the full cache
 * (each insert evicts one block) and after each insert reads {@code reads} random blocks of the
 * newest {@code blocks} (most are hits), timing each hit. Meanwhile the cache persists its index
 * every second on its own thread; the run counts the bytes it writes and the heap it allocates.
 *
 * <p>Concurrency: the caller's thread, plus one polling thread for HBase's persistence file.
 */
final class ScaleRun {
  private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final int SAMPLE = 1000;

  private final String subject;
  private final long blocks;
  private final Path home;
  private final int rate;
  private final int reads;
  private final double churnSeconds;
  private final long seed;
  private final Consumer<String> log;
  private final ScaleRow row = new ScaleRow();
  private long next; // the next block number to insert

  ScaleRun(String subject, long blocks, Path home, int rate, int reads, double churnSeconds,
      long seed, Consumer<String> log) {
    this.subject = subject;
    this.blocks = blocks;
    this.home = home;
    this.rate = rate;
    this.reads = reads;
    this.churnSeconds = churnSeconds;
    this.seed = seed;
    this.log = log;
    row.subject = subject;
    row.blocks = blocks;
  }

  long next() {
    return next;
  }

  ScaleRow row() {
    return row;
  }

  /** Fill, churn and clean restart; leaves the subject shut down cleanly on its files. */
  void run() throws Exception {
    row.restored = -1;
    long heap0 = liveHeap();
    long direct0 = direct();
    long t0 = System.nanoTime();
    BlockCache cache = ScaleCache.open(subject, blocks, home);
    if (cache instanceof BucketTier) {
      ((BucketTier) cache).waitForCacheInitialization(600_000);
    }
    boolean wait = !(cache instanceof BucketTier); // HBase drops what its queues cannot take
    for (; next < blocks; next++) {
      cache.cacheBlock(ScaleBlocks.key(next), ScaleBlocks.block(next), false, wait);
      if ((next & 0xFFFFF) == 0xFFFFF) {
        log.accept(String.format("  %s: %,d of %,d blocks written", subject, next + 1, blocks));
      }
    }
    Writes.awaitWritten(cache, blocks, 600_000);
    row.fillSeconds = seconds(t0);
    row.filled = cache.getBlockCount();
    row.heapBytesPerBlock = (double) (liveHeap() - heap0) / row.filled;
    row.offHeapBytesPerBlock = (double) (direct() - direct0) / row.filled;
    log.accept(String.format("  %s: filled %,d blocks in %.1f s; churning %.0f s",
        subject, row.filled, row.fillSeconds, churnSeconds));
    churn(cache, Math.min(2, churnSeconds / 4), null); // warm-up: the JIT, a first checkpoint
    churn(cache, churnSeconds, row);
    List<Long> sample = present(cache);
    t0 = System.nanoTime();
    cache.shutdown();
    row.shutdownSeconds = seconds(t0);
    restart(sample);
  }

  /** Up to {@value #SAMPLE} blocks the cache holds now, chosen at random among the newest. */
  private List<Long> present(BlockCache cache) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Long> out = new ArrayList<>();
    for (int tries = 0; tries < 20 * SAMPLE && out.size() < SAMPLE; tries++) {
      long i = next - 1 - rnd.nextLong(Math.min(next, blocks / 2));
      Optional<Boolean> cached = cache.isAlreadyCached(ScaleBlocks.key(i));
      if (cached.isPresent() && cached.get()) {
        out.add(i);
      }
    }
    return out;
  }

  private void restart(List<Long> sample) throws Exception {
    long t0 = System.nanoTime();
    BlockCache cache = reopen(subject, blocks, home, "the clean restart", row, log);
    if (cache == null) {
      return;
    }
    row.reopenMillis = millis(t0);
    row.firstHitMillis = firstHit(cache, sample, t0);
    if (cache instanceof BucketTier) {
      ((BucketTier) cache).waitForCacheInitialization(600_000);
    }
    row.restoreMillis = millis(t0);
    row.restored = cache.getBlockCount();
    row.wrongBlocks += verifyAll(cache, Math.max(0, next - blocks), next)[1];
    cache.shutdown();
    log.accept(String.format("  %s: restart: first hit after %.0f ms, %,d blocks restored in "
        + "%.0f ms", subject, row.firstHitMillis, row.restored, row.restoreMillis));
  }

  /**
   * Opens {@code subject} again on its files; null, with a note in {@code row}, if that fails
   * (HBase's constructor may throw on its own persistence file).
   */
  static BlockCache reopen(String subject, long blocks, Path home, String what, ScaleRow row,
      Consumer<String> log) {
    try {
      return ScaleCache.open(subject, blocks, home);
    } catch (RuntimeException | IOException e) {
      row.note += what + " failed: " + e + "; ";
      log.accept("  " + subject + ": " + what + " failed: " + e);
      return null;
    }
  }

  /**
   * Milliseconds from {@code t0} to the first hit on any of {@code sample}, polled in turn
   * (NaN if none within 10 minutes). Every hit is verified.
   */
  static double firstHit(BlockCache cache, List<Long> sample, long t0) {
    if (sample.isEmpty()) {
      return Double.NaN;
    }
    long deadline = t0 + TimeUnit.MINUTES.toNanos(10);
    for (int k = 0; System.nanoTime() < deadline; k++) {
      long i = sample.get(k % sample.size());
      Cacheable got = cache.getBlock(ScaleBlocks.key(i), true, false, false);
      if (got != null) {
        double ms = millis(t0);
        boolean right = ScaleBlocks.verify(i, got);
        got.release();
        if (!right) {
          throw new IllegalStateException("block " + i + " served with wrong bytes");
        }
        return ms;
      }
    }
    return Double.NaN;
  }

  /** Reads every block of {@code [lo, hi)}: {@code {hits, wrong}}. */
  static long[] verifyAll(BlockCache cache, long lo, long hi) {
    long hits = 0;
    long wrong = 0;
    for (long i = lo; i < hi; i++) {
      Cacheable got = cache.getBlock(ScaleBlocks.key(i), true, false, false);
      if (got != null) {
        hits++;
        if (!ScaleBlocks.verify(i, got)) {
          wrong++;
        }
        got.release();
      }
    }
    return new long[] {hits, wrong};
  }

  /** Churns for {@code seconds}; records what it measured in {@code into} (null: warm-up). */
  private void churn(BlockCache cache, double seconds, ScaleRow into) throws Exception {
    Histogram hitNanos = new Histogram(MAX_LATENCY_NANOS, 3);
    SplittableRandom rnd = new SplittableRandom(seed ^ next);
    ScaleCache.PersistFile file = subject.equals(ScaleCache.HBASE_FILE)
        ? new ScaleCache.PersistFile(ScaleCache.hbasePersistFile(home)) : null;
    Thread poller = null;
    if (file != null) {
      poller = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          file.poll();
          LockSupport.parkNanos(5_000_000);
        }
      }, "scale-persist-poller");
      poller.setDaemon(true);
      poller.start();
    }
    long[] writes0 = persistWrites(cache, file);
    Map<Long, Long> alloc0 = allocated();
    long evicted0 = cache.getStats().getEvictedCount();
    long examined0 = cache instanceof BucketTier ? ((BucketTier) cache).evictionSlotsExamined() : 0;
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long inserted = 0;
    long hits = 0;
    long misses = 0;
    long wrong = 0;
    for (long now = start; now < end; now = System.nanoTime()) {
      if (inserted >= (now - start) * rate / 1_000_000_000L) {
        LockSupport.parkNanos(100_000);
        continue;
      }
      cache.cacheBlock(ScaleBlocks.key(next), ScaleBlocks.block(next), false, false);
      next++;
      inserted++;
      for (int r = 0; r < reads; r++) {
        long i = next - 1 - rnd.nextLong(Math.min(next, blocks));
        BlockCacheKey key = ScaleBlocks.key(i);
        long t = System.nanoTime();
        Cacheable got = cache.getBlock(key, true, false, true);
        if (got == null) {
          misses++;
          continue;
        }
        hitNanos.recordValue(Math.min(MAX_LATENCY_NANOS, System.nanoTime() - t));
        hits++;
        if (!ScaleBlocks.verify(i, got)) {
          wrong++;
        }
        got.release();
      }
    }
    double elapsed = seconds(start);
    if (poller != null) {
      poller.interrupt();
      poller.join();
      file.poll();
    }
    if (into == null) {
      return;
    }
    long[] writes = persistWrites(cache, file);
    Map<Long, Long> alloc = allocated();
    into.churnSeconds = elapsed;
    into.churnInserts = inserted;
    into.persistBytes = writes[0] - writes0[0];
    into.checkpoints = writes[1] - writes0[1];
    into.persistBytesPerInterval = into.persistBytes
        / (elapsed * 1000 / ScaleCache.PERSIST_INTERVAL_MS);
    long persistAlloc = 0;
    long allAlloc = 0;
    Map<Long, String> names = threadNames();
    for (Map.Entry<Long, Long> e : alloc.entrySet()) {
      long d = e.getValue() - alloc0.getOrDefault(e.getKey(), 0L);
      allAlloc += d;
      String name = names.get(e.getKey());
      if (name != null && ScaleCache.isPersistThread(name)) {
        persistAlloc += d;
      }
    }
    into.persistAllocPerSecond = persistAlloc / elapsed;
    into.persistAllocPerBlockPerInterval = persistAlloc
        / (elapsed * 1000 / ScaleCache.PERSIST_INTERVAL_MS) / cache.getBlockCount();
    into.allAllocPerSecond = allAlloc / elapsed;
    if (into.checkpoints > 0) {
      into.persistAllocPerBlockPerCheckpoint =
          (double) persistAlloc / into.checkpoints / cache.getBlockCount();
    }
    into.evictions = cache.getStats().getEvictedCount() - evicted0;
    if (cache instanceof BucketTier && into.evictions > 0) {
      into.evictionSlotsPerEviction =
          (double) (((BucketTier) cache).evictionSlotsExamined() - examined0) / into.evictions;
    }
    into.hits = hits;
    into.misses = misses;
    into.wrongBlocks += wrong;
    into.hitP50Micros = hitNanos.getValueAtPercentile(50) / 1e3;
    into.hitP99Micros = hitNanos.getValueAtPercentile(99) / 1e3;
    into.hitP999Micros = hitNanos.getValueAtPercentile(99.9) / 1e3;
  }

  private static long[] persistWrites(BlockCache cache, ScaleCache.PersistFile file) {
    if (cache instanceof BucketTier) {
      return ((BucketTier) cache).persistWrites();
    }
    return file == null ? new long[2] : file.writes();
  }

  /** Heap allocated so far by each live thread. */
  private static Map<Long, Long> allocated() {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long[] ids = mx.getAllThreadIds();
    long[] bytes = mx.getThreadAllocatedBytes(ids);
    Map<Long, Long> out = new HashMap<>();
    for (int k = 0; k < ids.length; k++) {
      if (bytes[k] >= 0) {
        out.put(ids[k], bytes[k]);
      }
    }
    return out;
  }

  private static Map<Long, String> threadNames() {
    Map<Long, String> out = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      out.put(t.getId(), t.getName());
    }
    return out;
  }

  /** Live heap after full collections. */
  static long liveHeap() throws InterruptedException {
    for (int k = 0; k < 3; k++) {
      System.gc();
      Thread.sleep(50);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long direct() {
    long used = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        used += pool.getMemoryUsed();
      }
    }
    return used;
  }

  static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  static double millis(long since) {
    return (System.nanoTime() - since) / 1e6;
  }
}
