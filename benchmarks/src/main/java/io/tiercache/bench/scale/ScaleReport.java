/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.scale;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The scale run's tables: one row per subject and size, then TierCache {@code file:} against
 * HBase's BucketCache at each size as ratios (below 1: TierCache writes, allocates or waits
 * less).
 */
final class ScaleReport {
  private static final String[] HEADER = {"subject", "blocks", "fill s", "heap B/blk",
      "direct B/blk", "ckpts", "persist MB/int", "persist alloc MB/s", "alloc B/blk/ckpt", "alloc B/blk/int",
      "all alloc MB/s", "slots/evict", "hit p50 us", "hit p99 us", "wrong", "reopen ms",
      "1st hit ms", "restore ms", "restored", "kill synced", "kill kept %", "kill wrong",
      "kill 1st hit ms", "kill restore ms"};

  private ScaleReport() {}

  static String text(List<ScaleRow> rows, Map<String, String> meta) {
    StringBuilder b = new StringBuilder();
    b.append("scale: ").append(meta).append('\n');
    b.append(String.join(" | ", HEADER)).append('\n');
    for (ScaleRow r : rows) {
      b.append(String.join(" | ", cells(r))).append('\n');
    }
    b.append("\nTierCache file: / HBase BucketCache file:, same size (below 1: TierCache less)\n");
    b.append("blocks | persist bytes/interval | persist alloc/s | heap B/blk | hit p99 | "
        + "first hit (clean) | restore (clean) | first hit (SIGKILL)\n");
    for (ScaleRow t : rows) {
      if (!t.subject.equals(ScaleCache.TIERCACHE_FILE)) {
        continue;
      }
      for (ScaleRow h : rows) {
        if (h.subject.equals(ScaleCache.HBASE_FILE) && h.blocks == t.blocks) {
          b.append(String.format(Locale.ROOT, "%d | %s | %s | %s | %s | %s | %s | %s%n",
              t.blocks, ratio(t.persistBytesPerInterval, h.persistBytesPerInterval),
              ratio(t.persistAllocPerSecond, h.persistAllocPerSecond),
              ratio(t.heapBytesPerBlock, h.heapBytesPerBlock),
              ratio(t.hitP99Micros, h.hitP99Micros), ratio(t.firstHitMillis, h.firstHitMillis),
              ratio(t.restoreMillis, h.restoreMillis),
              ratio(t.killFirstHitMillis, h.killFirstHitMillis)));
        }
      }
    }
    for (ScaleRow r : rows) {
      if (!r.note.isEmpty()) {
        b.append(r.subject).append(" at ").append(r.blocks).append(": ").append(r.note)
            .append('\n');
      }
    }
    return b.toString();
  }

  static String csv(List<ScaleRow> rows) {
    StringBuilder b = new StringBuilder(String.join(",", HEADER)).append('\n');
    for (ScaleRow r : rows) {
      b.append(String.join(",", cells(r))).append('\n');
    }
    return b.toString();
  }

  private static String[] cells(ScaleRow r) {
    return new String[] {r.subject, Long.toString(r.blocks), f1(r.fillSeconds),
        f1(r.heapBytesPerBlock), f1(r.offHeapBytesPerBlock), Long.toString(r.checkpoints),
        f2(r.persistBytesPerInterval / 1e6), f2(r.persistAllocPerSecond / 1e6),
        f2(r.persistAllocPerBlockPerCheckpoint), f3(r.persistAllocPerBlockPerInterval),
        f2(r.allAllocPerSecond / 1e6),
        f2(r.evictionSlotsPerEviction), f1(r.hitP50Micros), f1(r.hitP99Micros),
        Long.toString(r.wrongBlocks), f1(r.reopenMillis), f1(r.firstHitMillis),
        f1(r.restoreMillis), Long.toString(r.restored), Long.toString(r.killSynced),
        f2(r.killKeptShare * 100), Long.toString(r.killWrongBlocks),
        f1(r.killFirstHitMillis), f1(r.killRestoreMillis)};
  }

  private static String ratio(double a, double b) {
    return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? "-"
        : String.format(Locale.ROOT, "%.2fx", a / b);
  }

  private static String f1(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String f3(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f", v);
  }

  private static String f2(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }
}
