/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.scale;

import io.tiercache.bucket.BucketTier;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.hadoop.hbase.io.hfile.BlockCache;

/**
 * The child JVM of the scale run's SIGKILL round: reopens a subject on the files its parent
 * left (a warm restart), then churns it — inserting blocks {@code start, start + 1, ...} at
 * {@code rate} per second — until the parent kills it with SIGKILL.
 *
 * <p>Every {@code syncMs} it pauses, lets every queued write land, makes the index durable (a
 * TierCache checkpoint or journal sync; for HBase, two persistence files written after the
 * pause; nothing for {@code pmem:}, which publishes durably), writes the set of blocks it then
 * holds as a bitmap ({@code kill.bits}, written to a temporary file, forced and renamed), and
 * prints {@code SYNCED seq lo hi count}. The parent expects every block of the last bitmap on
 * disk to be served after the restart, save those evicted by the churn after it.
 *
 * <p>Lines: {@code READY restoreMs}, then {@code SYNCED ...}. Ends on its own after 120 s.
 */
public final class ScaleChild {
  private ScaleChild() {}

  /** Args: subject home blocks start rate syncMs. Exits (status 1) on any failure. */
  public static void main(String[] args) {
    try {
      churn(args);
    } catch (Throwable t) {
      // HBase's constructor may throw on its own file; its threads would keep this JVM alive
      t.printStackTrace();
      System.out.println("FAILED " + t);
      System.out.flush();
      System.exit(1);
    }
    System.exit(0);
  }

  private static void churn(String[] args) throws Exception {
    String subject = args[0];
    Path home = Paths.get(args[1]);
    long blocks = Long.parseLong(args[2]);
    long next = Long.parseLong(args[3]);
    int rate = Integer.parseInt(args[4]);
    long syncNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
    long t0 = System.nanoTime();
    BlockCache cache = ScaleCache.open(subject, blocks, home);
    if (cache instanceof BucketTier) {
      ((BucketTier) cache).waitForCacheInitialization(600_000);
    }
    System.out.println("READY " + (System.nanoTime() - t0) / 1_000_000);
    System.out.flush();
    ScaleCache.PersistFile persisted = subject.equals(ScaleCache.HBASE_FILE)
        ? new ScaleCache.PersistFile(ScaleCache.hbasePersistFile(home)) : null;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    long start = System.nanoTime();
    long inserted = 0;
    long nextSync = start + syncNanos;
    int seq = 0;
    while (System.nanoTime() < end) {
      long now = System.nanoTime();
      if (now >= nextSync) {
        sync(cache, persisted);
        long lo = Math.max(0, next - blocks - blocks / 4);
        long count = writeBitmap(cache, home, lo, next);
        System.out.println("SYNCED " + (++seq) + " " + lo + " " + next + " " + count);
        System.out.flush();
        nextSync = System.nanoTime() + syncNanos;
        start = System.nanoTime();
        inserted = 0;
        continue;
      }
      if (inserted >= (now - start) * rate / 1_000_000_000L) {
        LockSupport.parkNanos(200_000);
        continue;
      }
      cache.cacheBlock(ScaleBlocks.key(next), ScaleBlocks.block(next), false, false);
      next++;
      inserted++;
    }
    cache.shutdown();
  }

  private static void sync(BlockCache cache, ScaleCache.PersistFile persisted)
      throws IOException, InterruptedException {
    if (cache instanceof BucketTier) {
      BucketTier tier = (BucketTier) cache;
      tier.flush(60_000);
      tier.checkpoint();
      return;
    }
    // HBase: no flush and no checkpoint call; wait for its persister to write twice after the
    // pause began (the first may have started before it), at most 10 s.
    persisted.poll();
    long before = persisted.writes()[1];
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (persisted.writes()[1] < before + 2 && System.nanoTime() < deadline) {
      Thread.sleep(5);
      persisted.poll();
    }
  }

  /** Writes which blocks of {@code [lo, hi)} the cache holds; returns how many. */
  private static long writeBitmap(BlockCache cache, Path home, long lo, long hi)
      throws IOException {
    long[] bits = new long[(int) ((hi - lo + 63) / 64)];
    long count = 0;
    for (long i = lo; i < hi; i++) {
      Optional<Boolean> cached = cache.isAlreadyCached(ScaleBlocks.key(i));
      if (cached.isPresent() && cached.get()) {
        bits[(int) ((i - lo) >>> 6)] |= 1L << ((i - lo) & 63);
        count++;
      }
    }
    Path tmp = home.resolve("kill.bits.tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      OutputStream raw = Channels.newOutputStream(ch);
      DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(raw, 1 << 16));
      out.writeLong(lo);
      out.writeLong(hi);
      for (long w : bits) {
        out.writeLong(w);
      }
      out.flush();
      ch.force(true);
    }
    Files.move(tmp, home.resolve("kill.bits"), StandardCopyOption.ATOMIC_MOVE);
    return count;
  }
}
