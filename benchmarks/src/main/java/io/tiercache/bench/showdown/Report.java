/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tiercache.bench.footprint.Footprint;
import io.tiercache.bench.subject.Subject.Vendor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The showdown's results as an aligned table, as ratios of each TierCache subject to each HBase
 * cache measured in the same run, and as files: {@code showdown.txt}, {@code showdown.csv},
 * {@code showdown.json} and {@code ratios.csv}; with {@code --rounds} above 1 the rows are
 * medians over each subject's runs of the cell and {@code rounds.csv} has every run.
 *
 * <p>Columns: {@code refused} counts blocks the cache failed to insert (HBase's failed inserts:
 * over the hard limit, writer queue full), {@code rejected} new blocks a TierCache admission
 * filter kept out (HBase's TinyLfuBlockCache rejects silently inside Caffeine and shows 0).
 *
 * <p>{@code opt} rows give Bélády's hit ratio for the cell's reads and capacity; {@code of OPT}
 * is each subject's hit ratio as a share of it. {@code a0} rows (patterns {@code uniform} and
 * {@code zipf}) give the hit ratio of the most probable blocks that fit: no cache that does not
 * know the order of future reads can expect more there (see {@code PopularityBound}).
 * {@code L2 KB/op} is what the cache wrote to its L2 engine per measured operation
 * ({@code n/a} for HBase's BucketCache, which does not count it); {@code wait us} the mean
 * time a miss really waited in a regime with a miss latency.
 *
 * <p>Ratios are TierCache / HBase: below 1 is better for TierCache for p99 latency and
 * allocation, above 1 for throughput; hit ratio is compared as a difference in points.
 *
 * <p>Concurrency: immutable after construction; used by the thread that ran the showdown.
 */
final class Report {
  private static final String[] HEADER = {"scenario", "misses", "subject", "ops/s", "hit%",
      "of OPT", "L1/L2 hit%", "p50 us", "p95 us", "p99 us", "p99.9 us", "max us", "KB/op",
      "L2 KB/op", "wait us", "ins p99 us", "GCs", "GC ms", "refused", "rejected", "blocks"};
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT);

  private final List<Result> results;
  private final Map<String, String> meta;
  private final List<Footprint.Result> footprint;
  private final List<Result> runs;

  Report(List<Result> results, Map<String, String> meta) {
    this(results, meta, List.of());
  }

  Report(List<Result> results, Map<String, String> meta, List<Footprint.Result> footprint) {
    this(results, meta, footprint, List.of());
  }

  /**
   * @param runs with {@code --rounds} above 1, every run whose medians {@code results} holds
   *     (written to {@code rounds.csv}); empty otherwise
   */
  Report(List<Result> results, Map<String, String> meta, List<Footprint.Result> footprint,
      List<Result> runs) {
    this.results = List.copyOf(results);
    this.meta = new LinkedHashMap<>(meta);
    this.footprint = List.copyOf(footprint);
    this.runs = List.copyOf(runs);
  }

  /**
   * The L2 memory measures (heap bytes per cached block, utilisation after a block-size shift)
   * as a text section; empty when none were measured.
   */
  String footprint() {
    if (footprint.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("\nL2 memory, same run (footprint): heap bytes per cached "
        + "block, utilisation after a 16 KB -> 64 KB block-size shift\n");
    b.append(Footprint.header());
    for (Footprint.Result r : footprint) {
      b.append(Footprint.row(r));
    }
    return b.toString();
  }

  /**
   * The results as an aligned text table, one row per subject and cell, each cell's rows led by
   * its {@code opt} row.
   */
  String table() {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    String cell = null;
    for (Result r : results) {
      if (!r.cell().equals(cell)) {
        cell = r.cell();
        if (!Double.isNaN(r.optHitRatio)) {
          rows.add(referenceRow(r, "opt", r.optHitRatio));
        }
        if (!Double.isNaN(r.a0HitRatio)) {
          rows.add(referenceRow(r, "a0", r.a0HitRatio));
        }
      }
      if (r.failed()) {
        rows.add(new String[] {r.scenario.name(), r.regime(), r.subject, "FAILED: " + r.error});
        continue;
      }
      rows.add(new String[] {r.scenario.name(), r.regime(), r.subject,
          fmt("%.0f", r.opsPerSecond()), pct(r.hitRatio),
          Double.isNaN(r.shareOfOpt()) ? "-" : fmt("%.0f%%", 100 * r.shareOfOpt()),
          Double.isNaN(r.l1HitRatio) && Double.isNaN(r.l2HitRatio) ? "-"
              : pct(r.l1HitRatio) + "/" + pct(r.l2HitRatio), micros(r.p50), micros(r.p95),
          micros(r.p99), micros(r.p999), micros(r.max), fmt("%.1f", r.allocBytesPerOp / 1024),
          Double.isNaN(r.bytesWrittenPerOp) ? "n/a" : fmt("%.1f", r.bytesWrittenPerOp / 1024),
          Double.isNaN(r.missWaitNanos) ? "-" : fmt("%.0f", r.missWaitNanos / 1e3),
          Double.isNaN(r.insertP99) ? "-" : fmt("%.1f", r.insertP99 / 1e3),
          Long.toString(r.gcCount), Long.toString(r.gcMillis), Long.toString(r.refused),
          Long.toString(r.admissionRejected),
          Double.isNaN(r.residentBlocksMean) ? "-" : fmt("%.0f", r.residentBlocksMean)});
    }
    return align(rows, 3);
  }

  /** A reference row of {@code r}'s cell: its hit ratio and its share of OPT's. */
  private static String[] referenceRow(Result r, String name, double hitRatio) {
    String[] row = new String[HEADER.length];
    java.util.Arrays.fill(row, "-");
    row[0] = r.scenario.name();
    row[1] = r.regime();
    row[2] = name;
    row[4] = pct(hitRatio);
    row[5] = r.optHitRatio > 0 ? fmt("%.0f%%", 100 * hitRatio / r.optHitRatio) : "-";
    return row;
  }

  /**
   * For each TierCache subject: per scenario, p99 and throughput relative to each HBase subject
   * and to the best HBase subject for that metric, and the hit-ratio difference.
   */
  String ratios() {
    StringBuilder out = new StringBuilder(headline());
    List<String> hbase = subjects(Vendor.HBASE);
    for (String t : subjects(Vendor.TIERCACHE)) {
      out.append(section(t, "p99 latency, " + t + " / HBase (below 1: " + t + " faster)", hbase,
          r -> r.p99, false));
      out.append(section(t, "throughput, " + t + " / HBase (above 1: " + t + " faster)", hbase,
          Result::opsPerSecond, true));
      out.append(hitSection(t, hbase));
    }
    return out.toString();
  }

  /**
   * Each TierCache subject against its HBase counterpart (L1 vs LruBlockCache, L2 per engine vs
   * BucketCache on the same engine), per scenario, with the geometric mean over scenarios.
   */
  String headline() {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"scenario", "tiercache", "vs", "p99 x", "p99.9 x", "max x", "ops/s x",
        "hit pt", "KB/op x", "GC ms"});
    for (String t : subjects(Vendor.TIERCACHE)) {
      String h = null;
      double[] logs = new double[6];
      int n = 0;
      for (String sc : scenarios()) {
        Result a = find(t, sc);
        if (a == null || a.counterpart == null) {
          continue;
        }
        h = a.counterpart;
        Result b = find(h, sc);
        if (b == null) {
          continue;
        }
        double[] x = {(double) a.p99 / b.p99, (double) a.p999 / b.p999,
            (double) a.max / b.max, a.opsPerSecond() / b.opsPerSecond(),
            100 * (a.hitRatio - b.hitRatio), a.allocBytesPerOp / b.allocBytesPerOp};
        rows.add(new String[] {sc, t, h, fmt("%.2f", x[0]), fmt("%.2f", x[1]), fmt("%.2f", x[2]),
            fmt("%.2f", x[3]), fmt("%+.1f", x[4]), fmt("%.2f", x[5]), a.gcMillis + "/" + b.gcMillis});
        for (int k = 0; k < x.length; k++) {
          logs[k] += k == 4 ? x[k] : Math.log(x[k]);
        }
        n++;
      }
      if (n > 1) {
        String[] mean = new String[10];
        mean[0] = "geomean (" + n + ")";
        mean[1] = t;
        mean[2] = h;
        for (int k = 0; k < logs.length; k++) {
          mean[3 + k] = k == 4 ? fmt("%+.1f", logs[k] / n) : fmt("%.2f", Math.exp(logs[k] / n));
        }
        mean[9] = "";
        rows.add(mean);
      }
    }
    if (rows.size() == 1) {
      return "";
    }
    return "like for like, TierCache / HBase counterpart (x below 1 is better for p99 and KB/op,"
        + " above 1 for ops/s; hit in points; mean of hit is arithmetic)\n" + align(rows, 3)
        + "\n";
  }

  /** Writes every file into {@code dir}. */
  void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("showdown.txt"), (header() + table() + "\n" + ratios() + footprint())
        .getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("showdown.csv"), csv().getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("showdown.json"), json().getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("ratios.csv"), ratiosCsv().getBytes(StandardCharsets.UTF_8));
    if (!runs.isEmpty()) {
      Files.write(dir.resolve("rounds.csv"), csv(runs).getBytes(StandardCharsets.UTF_8));
    }
    if (!footprint.isEmpty()) {
      Files.write(dir.resolve("footprint.csv"),
          Footprint.csv(footprint).getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The run's settings, one per line. */
  String header() {
    StringBuilder s = new StringBuilder();
    meta.forEach((k, v) -> s.append(k).append(": ").append(v).append('\n'));
    return s.append('\n').toString();
  }

  String csv() {
    return csv(results);
  }

  private static String csv(List<Result> results) {
    StringBuilder s = new StringBuilder("scenario,pattern,sizes,ratio,subject,vendor,capacity_bytes,"
        + "dataset_bytes,threads,ops,reads,seconds,ops_per_s,hit_ratio,l1_hit_ratio,l2_hit_ratio,"
        + "p50_ns,p95_ns,p99_ns,p999_ns,max_ns,alloc_bytes_per_op,gc_count,gc_ms,refused,"
        + "admission_rejected,regime,miss_latency_ns,miss_wait_ns,opt_hit_ratio,share_of_opt,"
        + "l2_bytes_written_per_op,a0_hit_ratio,miss_fetch_p99_ns,miss_fetch_p999_ns,"
        + "insert_p50_ns,insert_p99_ns,miss_mean_bytes,resident_blocks_mean,resident_blocks_max,"
        + "scan_hit_ratio,scan_gap_mean,rounds,round,error\n");
    for (Result r : results) {
      s.append(String.join(",", r.scenario.name(), r.scenario.pattern().label(),
          r.scenario.sizes().label(), Integer.toString(r.scenario.ratio()), r.subject,
          r.vendor.name().toLowerCase(Locale.ROOT), Long.toString(r.capacity),
          Long.toString(r.datasetBytes), Integer.toString(r.threads), Long.toString(r.ops),
          Long.toString(r.reads), fmt("%.3f", r.seconds), fmt("%.1f", r.opsPerSecond()),
          num(r.hitRatio), num(r.l1HitRatio), num(r.l2HitRatio), Long.toString(r.p50),
          Long.toString(r.p95), Long.toString(r.p99), Long.toString(r.p999), Long.toString(r.max),
          num(r.allocBytesPerOp), Long.toString(r.gcCount), Long.toString(r.gcMillis),
          Long.toString(r.refused), Long.toString(r.admissionRejected), r.regime(),
          Long.toString(r.missLatencyNanos), num(r.missWaitNanos), num(r.optHitRatio),
          num(r.shareOfOpt()), num(r.bytesWrittenPerOp), num(r.a0HitRatio), num(r.fetchP99),
          num(r.fetchP999), num(r.insertP50), num(r.insertP99), num(r.missMeanBytes),
          Double.isNaN(r.residentBlocksMean) ? "" : fmt("%.1f", r.residentBlocksMean),
          r.residentBlocksMax < 0 ? "" : Long.toString(r.residentBlocksMax),
          num(r.scanHitRatio), Double.isNaN(r.scanGapMean) ? "" : fmt("%.1f", r.scanGapMean),
          Integer.toString(r.rounds), Integer.toString(r.round),
          r.error == null ? "" : '"' + r.error + '"')).append('\n');
    }
    return s.toString();
  }

  String json() throws IOException {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode m = root.putObject("meta");
    meta.forEach(m::put);
    ArrayNode rows = root.putArray("results");
    for (Result r : results) {
      ObjectNode j = rows.addObject();
      j.put("scenario", r.scenario.name())
          .put("pattern", r.scenario.pattern().label())
          .put("sizes", r.scenario.sizes().label())
          .put("ratio", r.scenario.ratio())
          .put("regime", r.regime())
          .put("missLatencyNanos", r.missLatencyNanos)
          .put("subject", r.subject)
          .put("vendor", r.vendor.name().toLowerCase(Locale.ROOT))
          .put("capacityBytes", r.capacity)
          .put("datasetBytes", r.datasetBytes)
          .put("threads", r.threads)
          .put("ops", r.ops)
          .put("reads", r.reads);
      number(j, "seconds", r.seconds);
      number(j, "opsPerSecond", r.opsPerSecond());
      number(j, "hitRatio", r.hitRatio);
      number(j, "l1HitRatio", r.l1HitRatio);
      number(j, "l2HitRatio", r.l2HitRatio);
      number(j, "optHitRatio", r.optHitRatio);
      number(j, "shareOfOpt", r.shareOfOpt());
      number(j, "a0HitRatio", r.a0HitRatio);
      j.putObject("latencyNanos").put("p50", r.p50).put("p95", r.p95).put("p99", r.p99)
          .put("p999", r.p999).put("max", r.max);
      number(j, "missWaitNanos", r.missWaitNanos);
      ObjectNode miss = j.putObject("missNanos");
      number(miss, "fetchP99", r.fetchP99);
      number(miss, "fetchP999", r.fetchP999);
      number(miss, "insertP50", r.insertP50);
      number(miss, "insertP99", r.insertP99);
      number(j, "missMeanBytes", r.missMeanBytes);
      ObjectNode resident = j.putObject("residentBlocks");
      number(resident, "mean", r.residentBlocksMean);
      if (r.residentBlocksMax < 0) {
        resident.putNull("max");
      } else {
        resident.put("max", r.residentBlocksMax);
      }
      ObjectNode scan = j.putObject("scanReads");
      number(scan, "hitRatio", r.scanHitRatio);
      number(scan, "gapMean", r.scanGapMean);
      number(j, "allocBytesPerOp", r.allocBytesPerOp);
      number(j, "l2BytesWrittenPerOp", r.bytesWrittenPerOp);
      j.put("gcCount", r.gcCount)
          .put("gcMillis", r.gcMillis)
          .put("refused", r.refused)
          .put("admissionRejected", r.admissionRejected)
          .put("rounds", r.rounds)
          .put("round", r.round)
          .put("error", r.error);
    }
    return JSON.writeValueAsString(root) + "\n";
  }

  /** A number, or null where it is undefined (NaN) as JSON has no NaN. */
  private static void number(ObjectNode node, String name, double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      node.putNull(name);
    } else {
      node.put(name, v);
    }
  }

  String ratiosCsv() {
    StringBuilder s = new StringBuilder("scenario,tiercache,hbase,like_for_like,p99_ratio,"
        + "p999_ratio,ops_ratio,hit_ratio_ratio,hit_points_diff,alloc_ratio\n");
    for (String t : subjects(Vendor.TIERCACHE)) {
      for (String h : subjects(Vendor.HBASE)) {
        for (String sc : scenarios()) {
          Result a = find(t, sc);
          Result b = find(h, sc);
          if (a == null || b == null) {
            continue;
          }
          s.append(String.join(",", sc, t, h, Boolean.toString(h.equals(a.counterpart)),
              num((double) a.p99 / b.p99), num((double) a.p999 / b.p999),
              num(a.opsPerSecond() / b.opsPerSecond()), num(a.hitRatio / b.hitRatio),
              num(100 * (a.hitRatio - b.hitRatio)), num(a.allocBytesPerOp / b.allocBytesPerOp)))
              .append('\n');
        }
      }
    }
    return s.toString();
  }

  private String section(String t, String title, List<String> hbase,
      ToDoubleFunction<Result> metric, boolean higherIsBetter) {
    List<String[]> rows = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of("scenario"));
    head.addAll(hbase);
    head.add("vs best");
    rows.add(head.toArray(new String[0]));
    for (String sc : scenarios()) {
      Result a = find(t, sc);
      if (a == null) {
        continue;
      }
      List<String> row = new ArrayList<>(List.of(sc));
      double best = Double.NaN;
      for (String h : hbase) {
        Result b = find(h, sc);
        double v = b == null ? Double.NaN : metric.applyAsDouble(b);
        row.add(Double.isNaN(v) ? "-" : fmt("%.2f", metric.applyAsDouble(a) / v));
        if (!Double.isNaN(v) && (Double.isNaN(best) || (higherIsBetter ? v > best : v < best))) {
          best = v;
        }
      }
      row.add(Double.isNaN(best) ? "-" : fmt("%.2f", metric.applyAsDouble(a) / best));
      rows.add(row.toArray(new String[0]));
    }
    return title + "\n" + align(rows, 1) + "\n";
  }

  private String hitSection(String t, List<String> hbase) {
    List<String[]> rows = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of("scenario"));
    head.addAll(hbase);
    rows.add(head.toArray(new String[0]));
    for (String sc : scenarios()) {
      Result a = find(t, sc);
      if (a == null) {
        continue;
      }
      List<String> row = new ArrayList<>(List.of(sc));
      for (String h : hbase) {
        Result b = find(h, sc);
        row.add(b == null ? "-" : fmt("%+.1f", 100 * (a.hitRatio - b.hitRatio)));
      }
      rows.add(row.toArray(new String[0]));
    }
    return "hit ratio, " + t + " minus HBase, in points\n" + align(rows, 1) + "\n";
  }

  private List<String> subjects(Vendor vendor) {
    Set<String> names = new LinkedHashSet<>();
    for (Result r : results) {
      if (r.vendor == vendor && !r.failed()) {
        names.add(r.subject);
      }
    }
    return new ArrayList<>(names);
  }

  /** The cells (scenario, and regime outside the page-cache one) in run order. */
  private List<String> scenarios() {
    Set<String> names = new LinkedHashSet<>();
    results.forEach(r -> names.add(r.cell()));
    return new ArrayList<>(names);
  }

  private Result find(String subject, String scenario) {
    for (Result r : results) {
      if (r.subject.equals(subject) && r.cell().equals(scenario) && !r.failed()) {
        return r;
      }
    }
    return null;
  }

  /**
   * Aligns rows into columns: the first {@code leftColumns} left-aligned, the rest right-aligned.
   * A short row (a failure message) is printed as it is.
   */
  static String align(List<String[]> rows, int leftColumns) {
    int cols = 0;
    for (String[] r : rows) {
      cols = Math.max(cols, r.length);
    }
    int[] width = new int[cols];
    for (String[] r : rows) {
      if (r.length == cols) {
        for (int c = 0; c < cols; c++) {
          width[c] = Math.max(width[c], r[c].length());
        }
      }
    }
    StringBuilder s = new StringBuilder();
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < r.length; c++) {
        String pad = " ".repeat(r.length < cols && c == r.length - 1
            ? 0 : Math.max(0, width[c] - r[c].length()));
        line.append(c > 0 ? "  " : "");
        line.append(c < leftColumns ? r[c] + pad : pad + r[c]);
      }
      s.append(line.toString().stripTrailing()).append('\n');
    }
    return s.toString();
  }

  private static String micros(long nanos) {
    double us = nanos / 1000.0;
    return us < 100 ? fmt("%.1f", us) : fmt("%.0f", us);
  }

  private static String pct(double ratio) {
    return Double.isNaN(ratio) ? "-" : fmt("%.1f", 100 * ratio);
  }

  private static String num(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "" : fmt("%.4f", v);
  }

  static String fmt(String format, double v) {
    return String.format(Locale.ROOT, format, v);
  }
}
