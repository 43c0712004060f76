/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.hbase;

import io.tiercache.bucket.BucketTier;
import io.tiercache.bucket.alloc.Occupancy;
import io.tiercache.combined.TieredBlockCache;
import io.tiercache.core.stats.TierStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.apache.hadoop.hbase.io.hfile.CombinedBlockCache.CombinedCacheStats;

/**
 * What a {@link RealHBase} run's RegionServer block cache holds and did: its hit counters, the
 * tiers' residency after the measured pass, and TierCache's own work (admissions, bytes written,
 * copies between tiers) over it.
 *
 * <p>Concurrency: stateless; reads the cache's counters, which are safe to read while it runs.
 */
final class CacheProbe {
  private CacheProbe() {}

  /**
   * One line on what each tier holds after the measured pass, and the table's HFile bytes: the
   * data an L2's share of the cache can hold a share of (uniform reads).
   */
  static String residency(String subject, int ratio, BlockCache cache, Path root)
      throws IOException {
    long hfileBytes;
    Path table = root.resolve("data/default/" + RealHBase.TABLE);
    try (java.util.stream.Stream<Path> files = Files.walk(table)) {
      hfileBytes = files.filter(f -> Files.isRegularFile(f)
          && f.getParent().getFileName().toString().startsWith("info")).mapToLong(f -> {
            try {
              return Files.size(f);
            } catch (IOException e) {
              return 0;
            }
          }).sum();
    }
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
        "real-hbase residency: %s %d:1, HFiles %.1f MB", subject, ratio, hfileBytes / 1e6));
    BlockCache[] tiers = cache.getBlockCaches();
    if (tiers == null) {
      tiers = new BlockCache[] {cache};
    }
    for (int i = 0; i < tiers.length; i++) {
      BlockCache t = tiers[i];
      line.append(String.format(Locale.ROOT, "; tier %d (%s): %d blocks, %.1f of %.1f MB, %d "
          + "failed inserts", i + 1, t.getClass().getSimpleName(), t.getBlockCount(),
          t.getCurrentSize() / 1e6, t.getMaxSize() / 1e6, t.getStats().getFailedInserts()));
      if (t instanceof BucketTier) { // slabs per size class: where the L2's memory went
        Occupancy o = ((BucketTier) t).occupancy();
        line.append(String.format(Locale.ROOT, " (%d free slabs", o.freeSlabs()));
        for (int c = 0; c < o.classCount(); c++) {
          if (o.slabs(c) > 0) {
            line.append(String.format(Locale.ROOT, "; %d-byte slots: %d slabs, %d of %d slots used",
                o.classSize(c), o.slabs(c), o.usedSlots(c), o.slots(c)));
          }
        }
        line.append(')');
      }
    }
    return line.toString();
  }

  /**
   * TierCache's work so far: {promotions, then per tier admitted (counted by the L2 only),
   * rejected by admission, bytes written, blocks handed to the next tier}; null for a cache
   * whose tiers do not count it (HBase's).
   */
  static long[] work(BlockCache cache) {
    BlockCache[] tiers = cache.getBlockCaches();
    if (!(cache instanceof TieredBlockCache) || tiers == null || tiers.length != 2) {
      return null;
    }
    long[] w = new long[9];
    w[0] = ((TieredBlockCache) cache).promotions();
    for (int i = 0; i < 2; i++) {
      if (!(tiers[i].getStats() instanceof TierStats)) {
        return null;
      }
      TierStats t = (TierStats) tiers[i].getStats();
      w[1 + 4 * i] = t.admitted();
      w[2 + 4 * i] = t.admissionRejected();
      w[3 + 4 * i] = t.bytesWritten();
      w[4 + 4 * i] = t.handedOff();
    }
    return w;
  }

  /**
   * One line on what the cache did during the measured pass: the L2's admission decisions and
   * bytes written, hot mode's copies of L2 data blocks into the L1, the L1's admission
   * rejections and its victims handed down.
   */
  static String workLine(String subject, int ratio, long[] before, long[] after,
      long lookups) {
    long[] d = new long[after.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = after[i] - before[i];
    }
    double perLookup = Math.max(1, lookups);
    return String.format(Locale.ROOT, "real-hbase work: %s %d:1, measured pass, %d block lookups;"
        + " L2 admitted %d, rejected %d, wrote %.1f MB (%.0f B per lookup); %d L2 data blocks"
        + " copied into the L1, whose admission rejected %d; %d L1 victims handed to the L2",
        subject, ratio, lookups, d[5], d[6], d[7] / 1e6, d[7] / perLookup, d[0], d[2], d[4]);
  }

  /** {hits, requests, l1 hits, l1 requests, l2 hits, l2 requests}. */
  static long[] counters(BlockCache cache) {
    CacheStats s = cache.getStats();
    long[] c = {s.getHitCount(), s.getRequestCount(), 0, 0, 0, 0};
    if (s instanceof CombinedCacheStats) {
      CacheStats l1 = ((CombinedCacheStats) s).getLruCacheStats();
      CacheStats l2 = ((CombinedCacheStats) s).getBucketCacheStats();
      c[2] = l1.getHitCount();
      c[3] = l1.getRequestCount();
      c[4] = l2.getHitCount();
      c[5] = l2.getRequestCount();
    }
    return c;
  }
}
