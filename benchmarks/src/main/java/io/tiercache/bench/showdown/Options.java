/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import io.tiercache.bench.cli.Converters;
import io.tiercache.bench.data.BlockSizes;
import io.tiercache.bench.subject.Subjects;
import io.tiercache.bench.workload.Pattern;
import io.tiercache.bench.workload.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The showdown's command line (picocli). A preset sets everything; the other options override it.
 * {@code showdown --help} prints every option with its default.
 *
 * <ul>
 *   <li>{@code --quick}: zipfian 64 KB at 1:1, 3:1, 9:1 plus the scan-polluted and HBase-shaped
 *       mixes at 3:1, 300,000 measured operations each, page-cache misses only.</li>
 *   <li>{@code --full} (the default): uniform, zipfian, scan-polluted and HBase-shaped 64 KB, and
 *       zipfian mixed sizes, each at 1:1, 3:1, 9:1; 800,000 operations; every scenario in both
 *       miss regimes (page cache, and 500 us storage-bound misses on 100,000 operations).</li>
 * </ul>
 * Warm-up defaults to three times the number of blocks the cache holds.
 *
 * <p>Concurrency: filled in by picocli and {@link #resolve()} on the main thread, then only read.
 */
@Command(name = "showdown", mixinStandardHelpOptions = true, showDefaultValues = true,
    sortOptions = false, usageHelpAutoWidth = true,
    description = {"The block-cache showdown: the same workloads against every TierCache tier and "
        + "HBase's own caches, in one JVM.",
        "Results go to benchmarks/target/showdown/ (txt, csv, json, png)."})
public final class Options implements Callable<Integer> {
  static final long QUICK_OPS = 300_000;
  static final long FULL_OPS = 800_000;
  /** The storage-bound regime of {@code --full}: an HDFS-like remote read per miss. */
  static final long FULL_MISS_LATENCY_NANOS = 500_000;
  /** Measured operations of a cell with a miss latency, unless {@code --miss-latency-ops}. */
  static final long LATENCY_OPS = 100_000;
  /** Most runs per subject and cell ({@code --rounds}): a round of the full preset takes 17 min. */
  static final int MAX_ROUNDS = 9;

  String preset = "full";

  @Spec
  CommandSpec spec;

  @Option(names = "--capacity", converter = Converters.Bytes.class, paramLabel = "SIZE",
      defaultValue = "256m", description = "Cache size given to every subject.")
  long capacity;

  @Option(names = "--threads", paramLabel = "N",
      description = "Worker threads (default: available processors, ${DEFAULT-VALUE}).")
  int threads = Runtime.getRuntime().availableProcessors();

  @Option(names = "--ops", paramLabel = "N", description = "Measured operations per cell "
      + "(default: " + QUICK_OPS + " with --quick, " + FULL_OPS + " with --full).")
  Long opsOption;

  @Option(names = "--warmup", paramLabel = "N", defaultValue = "-1", showDefaultValue =
      CommandLine.Help.Visibility.NEVER, description = "Warm-up operations per cell "
      + "(default: 3 x the blocks the cache holds).")
  long warmupOps;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "20240601",
      description = "Seed of the dataset and of every access stream.")
  long seed;

  @Option(names = "--subjects", paramLabel = "a,b*",
      description = "Subject names or globs, e.g. tiercache-*,hbase-lru (default: all).")
  String subjects;

  @Option(names = "--scenarios", paramLabel = "p-s-Nx,*",
      description = {"pattern-sizes-ratio names or globs, e.g. zipf-64k-3x,hbase-*, over every "
          + "pattern (uniform, zipf, scan, hbase), size (64k, mixed) and ratio (1x, 3x, 9x); any "
          + "Nx may be named (default: the preset's)."})
  String scenarioFilter;

  @Option(names = "--miss-latency", split = ",", paramLabel = "DURATION",
      converter = Converters.Nanos.class,
      description = {"Miss regimes: a fixed remote-read latency added to every miss (parked, "
          + "not spinning), e.g. 0,500us; each regime runs every scenario (default: 0 with "
          + "--quick, 0,500us with --full)."})
  List<Long> missLatencyOption;

  @Option(names = "--miss-latency-ops", paramLabel = "N", description = "Measured operations "
      + "of a cell whose misses wait (default: the smaller of --ops and " + LATENCY_OPS + ").")
  Long latencyOpsOption;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Where the report goes (default: benchmarks/target/showdown).")
  Path out;

  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "Where the dataset files are written once (default: "
          + "benchmarks/target/showdown-data).")
  Path dataDir;

  @Option(names = "--cache-dir", paramLabel = "DIR", description = "Where file and mmap "
      + "engines keep their files (default: /dev/shm/tiercache-showdown).")
  Path cacheDir;

  @Option(names = "--footprint-blocks", paramLabel = "N", defaultValue = "100000",
      description = "Blocks of the L2 heap-per-block measurement run after the scenarios for "
          + "the L2 subjects (0 skips it).")
  int footprintBlocks;

  @Option(names = "--rounds", paramLabel = "N", defaultValue = "1", description = {"Runs of "
      + "every subject per cell, from 1 to " + MAX_ROUNDS + ": the subjects take turns, each "
      + "round starting one subject later, and the report gives each measure's median over the "
      + "runs (rounds.csv: every run). Default: ${DEFAULT-VALUE}."})
  int rounds;

  @Option(names = "--no-charts", negatable = false, description = "Write no PNG charts.")
  boolean noCharts;

  @Option(names = "--list", description = "Print the subjects and scenarios and exit.")
  boolean list;

  /** Resolved by {@link #resolve()}. */
  long ops;
  boolean charts;
  List<Scenario> scenarios = new ArrayList<>();
  /** Miss latencies in nanoseconds, one regime each, 0 (page-cache misses) first if present. */
  List<Long> missLatencies;
  long latencyOps;
  /** The arguments as given, for the report. */
  String arguments = "";

  @Option(names = "--quick", description = "The quick preset: zipf-64k at 1x/3x/9x, "
      + "scan-64k-3x, hbase-64k-3x, " + QUICK_OPS + " ops, page-cache misses.")
  void quick(boolean on) {
    preset = "quick";
  }

  @Option(names = "--full", description = "The full preset (the default): uniform/zipf/scan/"
      + "hbase-64k and zipf-mixed at 1x/3x/9x, " + FULL_OPS + " ops, both miss regimes.")
  void full(boolean on) {
    preset = "full";
  }

  /**
   * Parses {@code args}; throws {@link IllegalArgumentException} with picocli's message and the
   * usage for a bad command line.
   */
  static Options parse(String... args) {
    Options o = new Options();
    CommandLine cli = new CommandLine(o);
    try {
      cli.parseArgs(args);
      o.arguments = String.join(" ", args);
      o.resolve();
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage() + "\n" + cli.getUsageMessage(), e);
    }
    return o;
  }

  @Override
  public Integer call() throws Exception {
    try {
      List<String> given = spec.commandLine().getParseResult().originalArgs();
      // Under benchmarks.jar the list starts with the command's name: keep what follows it.
      int own = spec.parent() == null ? -1 : given.indexOf(spec.name());
      arguments = String.join(" ", given.subList(own + 1, given.size()));
      resolve();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    return Showdown.execute(this);
  }

  /** Fills in what depends on the preset and validates; called once after parsing. */
  void resolve() {
    if (threads < 1) {
      throw new IllegalArgumentException("--threads must be at least 1, not " + threads);
    }
    if (opsOption != null && opsOption < 1) {
      throw new IllegalArgumentException("--ops must be at least 1, not " + opsOption);
    }
    if (rounds < 1 || rounds > MAX_ROUNDS) {
      throw new IllegalArgumentException("--rounds must be from 1 to " + MAX_ROUNDS + ", not "
          + rounds);
    }
    if (footprintBlocks < 0) {
      throw new IllegalArgumentException("--footprint-blocks must be at least 0, not "
          + footprintBlocks);
    }
    ops = opsOption != null ? opsOption : "quick".equals(preset) ? QUICK_OPS : FULL_OPS;
    latencyOps = latencyOpsOption != null ? latencyOpsOption : Math.min(ops, LATENCY_OPS);
    if (latencyOps < 1) {
      throw new IllegalArgumentException("--miss-latency-ops must be at least 1");
    }
    missLatencies = missLatencyOption != null ? new ArrayList<>(new LinkedHashSet<>(
        missLatencyOption)) : "quick".equals(preset) ? List.of(0L)
        : List.of(0L, FULL_MISS_LATENCY_NANOS);
    charts = !noCharts;
    scenarios = scenarioFilter != null ? scenarios(scenarioFilter) : presetScenarios(preset);
    Path base = defaultBase();
    out = out != null ? out : base.resolve("showdown");
    dataDir = dataDir != null ? dataDir : base.resolve("showdown-data");
    if (cacheDir == null) {
      Path shm = Paths.get("/dev/shm");
      cacheDir = Files.isDirectory(shm) && Files.isWritable(shm)
          ? shm.resolve("tiercache-showdown") : base.resolve("showdown-cache");
    }
  }

  /** Measured operations of a cell in the regime with {@code missLatencyNanos}. */
  long opsFor(long missLatencyNanos) {
    return missLatencyNanos == 0 ? ops : latencyOps;
  }

  /** Warm-up operations for a cache holding blocks of {@code sizes}. */
  long warmupFor(BlockSizes sizes) {
    return warmupOps >= 0 ? warmupOps : Math.max(2_000, 3 * capacity / sizes.typicalPayload());
  }

  static List<Scenario> presetScenarios(String preset) {
    if ("quick".equals(preset)) {
      List<Scenario> quick = Scenario.matrix(List.of(Pattern.ZIPF), List.of(BlockSizes.FIXED_64K));
      quick.add(Scenario.parse("scan-64k-3x"));
      quick.add(Scenario.parse("hbase-64k-3x"));
      return quick;
    }
    List<Scenario> full = Scenario.matrix(Arrays.asList(Pattern.values()),
        List.of(BlockSizes.FIXED_64K));
    full.addAll(Scenario.matrix(List.of(Pattern.ZIPF), List.of(BlockSizes.MIXED)));
    return full;
  }

  /** Scenarios named by a comma-separated list of names and globs. */
  static List<Scenario> scenarios(String filter) {
    List<Scenario> every = Scenario.matrix(Arrays.asList(Pattern.values()),
        Arrays.asList(BlockSizes.values()));
    Set<Scenario> chosen = new LinkedHashSet<>();
    for (String entry : filter.split(",")) {
      String e = entry.trim();
      if (e.isEmpty()) {
        continue;
      }
      if (e.contains("*")) {
        java.util.regex.Pattern glob = Subjects.glob(e);
        int before = chosen.size();
        every.stream().filter(s -> glob.matcher(s.name()).matches()).forEach(chosen::add);
        if (chosen.size() == before) {
          throw new IllegalArgumentException("no scenario matches '" + e + "'");
        }
      } else {
        chosen.add(Scenario.parse(e));
      }
    }
    return new ArrayList<>(chosen);
  }

  /**
   * The directory results go under: {@code target} beside the benchmarks jar when running from
   * it (so {@code benchmarks/target/showdown} from the repository root), else {@code ./target}.
   */
  private static Path defaultBase() {
    try {
      Path jar = Paths.get(Options.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isRegularFile(jar) && jar.getParent() != null
          && jar.getParent().getFileName().toString().equals("target")) {
        return jar.getParent();
      }
    } catch (Exception e) {
      // Fall through to the working directory.
    }
    return Paths.get("target");
  }
}
