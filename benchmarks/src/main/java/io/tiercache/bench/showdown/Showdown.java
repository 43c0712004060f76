/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import io.tiercache.bench.cli.Git;
import io.tiercache.bench.cli.Progress;
import io.tiercache.bench.data.BlockLayout;
import io.tiercache.bench.data.BlockSizes;
import io.tiercache.bench.data.Dataset;
import io.tiercache.bench.footprint.Footprint;
import io.tiercache.bench.subject.Subject;
import io.tiercache.bench.subject.Subjects;
import io.tiercache.bench.workload.Belady;
import io.tiercache.bench.workload.PopularityBound;
import io.tiercache.bench.workload.Scenario;
import io.tiercache.bench.workload.Workload;
import io.tiercache.core.config.Sizes;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hbase.util.VersionInfo;

/**
 * The block-cache showdown: the same workloads, in one JVM, against every TierCache tier and
 * HBase's own caches, reporting throughput, hit ratio, latency percentiles, allocation per
 * operation, GC and refused blocks.
 *
 * <p>Run it from the repository root (the jar sets the module opens HBase needs):
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xms3g -Xmx3g -XX:MaxDirectMemorySize=2g -jar benchmarks/target/benchmarks.jar showdown --quick
 * </pre>
 * {@code showdown --help} ({@link Options}) lists the options. Results go to {@code benchmarks/target/showdown/}; the
 * dataset files are written once to {@code benchmarks/target/showdown-data/} and reused.
 *
 * <p>Each scenario runs every subject back to back, so the noise of a shared machine spreads over
 * all of them alike; compare ratios within a run, not absolute numbers across runs. With
 * {@code --rounds N} the subjects take turns N times per cell (each round starting one subject
 * later) and each row is the median of the runs, measure by measure ({@link Result#median}).
 */
public final class Showdown {
  private Showdown() {}

  /** Runs the showdown; the exit status is 1 if any run failed, 2 for bad arguments. */
  public static void main(String[] args) {
    System.exit(new picocli.CommandLine(new Options()).execute(args));
  }

  /** Runs a parsed and resolved command line; returns the exit status. */
  static int execute(Options options) throws Exception {
    List<Result> results = run(options, Subjects.standard(), System.out);
    return results.stream().anyMatch(Result::failed) ? 1 : 0;
  }

  /** Runs the selected subjects and scenarios, prints and writes the report, returns the rows. */
  static List<Result> run(Options o, Subjects registry, PrintStream out) throws Exception {
    List<Subject> subjects = registry.select(o.subjects);
    if (o.list) {
      out.println("subjects:");
      registry.all().forEach(s -> out.printf("  %-22s %s%n", s.name(), s.description()));
      out.println("scenarios (" + o.preset + "):");
      o.scenarios.forEach(s -> out.println("  " + s.name()));
      return List.of();
    }
    Map<String, String> meta = meta(o, subjects);
    meta.forEach((k, v) -> out.println(k + ": " + v));
    out.println();

    Map<BlockSizes, Dataset> datasets = new EnumMap<>(BlockSizes.class);
    List<Result> results = new ArrayList<>();
    List<Result> runs = new ArrayList<>();
    double cost = 0;
    for (Scenario scenario : o.scenarios) {
      for (long latency : o.missLatencies) {
        cost += o.rounds * subjects.size()
            * (double) (o.warmupFor(scenario.sizes()) + o.opsFor(latency));
      }
    }
    Progress progress = new Progress(o.scenarios.size() * o.missLatencies.size() * subjects.size()
        * o.rounds, cost, System::nanoTime);
    boolean jitWarm = false;
    try {
      for (Scenario scenario : o.scenarios) {
        Dataset dataset = datasets.get(scenario.sizes());
        if (dataset == null) {
          long begin = System.nanoTime();
          dataset = open(o, scenario.sizes(), out);
          datasets.put(scenario.sizes(), dataset);
          progress.skip(System.nanoTime() - begin);
        }
        Workload workload = Workload.of(scenario, dataset.layout(), o.capacity, o.seed);
        Runner runner = new Runner(dataset, o.cacheDir, o.capacity, o.threads, o.seed);
        long warmup = o.warmupFor(scenario.sizes());
        if (!jitWarm) {
          // The first subject measured would otherwise pay for compiling the shared read path.
          out.println("JIT warm-up: every subject, " + warmup + " ops, not reported");
          long begin = System.nanoTime();
          for (Subject subject : subjects) {
            settle();
            runner.run(subject, workload, warmup, warmup, 0, Bounds.NONE, 1);
          }
          progress.skip(System.nanoTime() - begin);
          jitWarm = true;
        }
        Map<Long, Bounds> boundsByOps = new HashMap<>();
        double a0 = a0(workload, o.capacity); // independent of the trace's length
        for (long latency : o.missLatencies) {
          long ops = o.opsFor(latency);
          long optStart = System.nanoTime();
          Bounds bounds = boundsByOps.computeIfAbsent(ops, n -> new Bounds(
              opt(workload, o, warmup, n), a0));
          out.printf(Locale.ROOT, "%s, %s misses: %d files, %s, %d data blocks, warm-up %d ops, "
              + "%d measured; Belady OPT hit %.1f%%, A0 bound %s (%.1f s)%n", scenario,
              Result.regime(latency), workload.files(), Sizes.format(workload.bytes()),
              workload.dataBlocks(), warmup, ops, 100 * bounds.opt,
              Double.isNaN(bounds.a0) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * bounds.a0),
              (System.nanoTime() - optStart) / 1e9);
          Map<String, List<Result>> cell = new LinkedHashMap<>();
          subjects.forEach(s -> cell.put(s.name(), new ArrayList<>()));
          for (int round = 1; round <= o.rounds; round++) {
            // Each round starts one subject later, so no subject is always first after the
            // page cache is warmed or always follows the same cache.
            for (int i = 0; i < subjects.size(); i++) {
              Subject subject = subjects.get((i + round - 1) % subjects.size());
              settle();
              dataset.warm(workload.bytes()); // every subject starts with the cell's blocks cached
              Result r = runner.run(subject, workload, warmup, ops, latency, bounds, round);
              cell.get(subject.name()).add(r);
              runs.add(r);
              out.println("  " + progress.step(warmup + ops) + " "
                  + (o.rounds > 1 ? "round " + round + "/" + o.rounds + " " : "") + line(r));
            }
          }
          for (List<Result> subjectRuns : cell.values()) {
            Result median = Result.median(subjectRuns);
            results.add(median);
            if (o.rounds > 1) {
              out.println("  median of " + o.rounds + "  " + line(median));
            }
          }
        }
      }
    } finally {
      for (Dataset d : datasets.values()) {
        d.close();
      }
    }
    List<Footprint.Result> footprint = footprint(o, subjects, out);
    Report report = new Report(results, meta, footprint, o.rounds > 1 ? runs : List.of());
    out.println();
    out.print(report.table());
    out.println();
    out.print(report.ratios());
    out.print(report.footprint());
    report.write(o.out);
    if (o.charts) {
      Charts.write(results, o.out, String.format(Locale.ROOT,
          "%s, %s cache, %d threads, %,d ops, JDK %s, %s", o.preset, Sizes.format(o.capacity),
          o.threads, o.ops, System.getProperty("java.version"), Git.commit()));
    }
    out.println("wrote " + o.out.toAbsolutePath() + "/{showdown.txt,showdown.csv,showdown.json,"
        + "ratios.csv" + (footprint.isEmpty() ? "" : ",footprint.csv")
        + (o.rounds > 1 ? ",rounds.csv" : "") + (o.charts ? ",*.png" : "")
        + "}");
    return results;
  }

  /**
   * The L2 memory measures of issue 4 (heap bytes per cached block, utilisation after a
   * block-size shift) for the selected L2 subjects, in this JVM after the scenarios.
   */
  private static List<Footprint.Result> footprint(Options o, List<Subject> subjects,
      PrintStream out) throws Exception {
    List<Subject> l2 = new ArrayList<>();
    for (Subject s : subjects) {
      if (Footprint.isL2(s)) {
        l2.add(s);
      }
    }
    if (o.footprintBlocks == 0 || l2.isEmpty()) {
      return List.of();
    }
    out.printf(Locale.ROOT, "L2 footprint: %d blocks of 1 KB per subject, then a 16 KB -> 64 KB "
        + "shift in 64 MB%n  %s", o.footprintBlocks, Footprint.header());
    settle();
    return Footprint.measureAll(l2, o.footprintBlocks, o.cacheDir.resolve("footprint"),
        r -> out.print("  " + Footprint.row(r)));
  }

  private static Dataset open(Options o, BlockSizes sizes, PrintStream out) throws Exception {
    int maxRatio = o.scenarios.stream().filter(s -> s.sizes() == sizes)
        .mapToInt(Scenario::ratio).max().orElse(1);
    // Eight files per cache-full of data: enough files for index/bloom blocks and per-file
    // eviction to matter, few enough to keep the layout small.
    BlockLayout layout = new BlockLayout(sizes, Math.max(1, o.capacity / 8),
        maxRatio * o.capacity, o.seed ^ sizes.ordinal());
    long start = System.nanoTime();
    Dataset dataset = Dataset.open(layout, o.dataDir);
    out.printf(Locale.ROOT, "dataset %s: %s in %d files at %s (%.1f s)%n", sizes.label(),
        Sizes.format(layout.totalBytes()), layout.fileCount(), dataset.path(),
        (System.nanoTime() - start) / 1e9);
    return dataset;
  }

  /** Bélády's hit ratio for the cell's reads (same threads, warm-up and measured operations). */
  private static double opt(Workload workload, Options o, long warmup, long ops) {
    int[][] trace = Belady.trace(workload, o.seed, o.threads, warmup, ops);
    BlockLayout layout = workload.layout();
    return Belady.hitRatio(trace[0], layout.blockCount(), layout::onDiskSize, o.capacity,
        trace[1][0]);
  }

  /** {@link PopularityBound} over the cell's data blocks, NaN where the pattern has none. */
  private static double a0(Workload workload, long capacity) {
    double[] p = workload.dataBlockProbabilities();
    if (p == null) {
      return Double.NaN;
    }
    BlockLayout layout = workload.layout();
    return PopularityBound.hitRatio(p, ordinal -> layout.onDiskSize(layout.dataBlock(ordinal)),
        capacity);
  }

  /** Lets the previous cache's memory go before the next one is measured. */
  private static void settle() {
    System.gc();
    System.gc();
  }

  private static String line(Result r) {
    if (r.failed()) {
      return String.format(Locale.ROOT, "%-22s FAILED: %s", r.subject, r.error);
    }
    return String.format(Locale.ROOT,
        "%-22s %9.0f ops/s  hit %5.1f%% (%3.0f%% of OPT)  p50 %7.1f  p99 %8.1f  p99.9 %8.1f us"
            + "  %6.1f KB/op  L2 writes %s KB/op  gc %d/%d ms  refused %d  rejected %d",
        r.subject, r.opsPerSecond(), 100 * r.hitRatio, 100 * r.shareOfOpt(), r.p50 / 1e3,
        r.p99 / 1e3, r.p999 / 1e3, r.allocBytesPerOp / 1024,
        Double.isNaN(r.bytesWrittenPerOp) ? "n/a" : String.format(Locale.ROOT, "%.1f",
            r.bytesWrittenPerOp / 1024), r.gcCount, r.gcMillis, r.refused, r.admissionRejected);
  }

  private static Map<String, String> meta(Options o, List<Subject> subjects) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    m.put("preset", o.preset);
    m.put("arguments", o.arguments);
    m.put("hbase", VersionInfo.getVersion());
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("jvm flags", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    m.put("max heap", Sizes.format(Runtime.getRuntime().maxMemory()));
    m.put("capacity", Sizes.format(o.capacity));
    m.put("threads", Integer.toString(o.threads));
    m.put("measured ops", Long.toString(o.ops));
    m.put("miss regimes", o.missLatencies.stream().map(Result::regime)
        .collect(java.util.stream.Collectors.joining(", ")));
    if (o.missLatencies.stream().anyMatch(l -> l > 0)) {
      m.put("measured ops with a miss latency", Long.toString(o.latencyOps));
    }
    m.put("commit", Git.commit());
    m.put("seed", Long.toString(o.seed));
    m.put("rounds", o.rounds == 1 ? "1" : o.rounds + " (every subject runs each cell " + o.rounds
        + " times, in turn, starting one subject later each round; a row gives each measure's "
        + "median, rounds.csv every run)");
    m.put("subjects", subjects.toString());
    m.put("scenarios", o.scenarios.toString());
    m.put("cache dir", o.cacheDir.toString());
    return m;
  }
}
