/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import io.tiercache.bench.data.BlockSizes;
import io.tiercache.bench.subject.Subjects;
import io.tiercache.bench.workload.Pattern;
import io.tiercache.bench.workload.Scenario;
import io.tiercache.core.config.Sizes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The showdown's command line. A preset sets everything; the other options override it.
 *
 * <pre>
 * showdown [--quick | --full] [--subjects a,b*] [--scenarios zipf-64k-3x,hbase-*]
 *          [--capacity 256m] [--threads N] [--ops N] [--warmup N] [--seed N]
 *          [--out DIR] [--data-dir DIR] [--cache-dir DIR] [--no-charts] [--list]
 *          [--footprint-blocks N]
 * </pre>
 *
 * <ul>
 *   <li>{@code --quick} (about 2 minutes on 2 cores): zipfian 64 KB at 1:1, 3:1, 9:1 plus the
 *       scan-polluted and HBase-shaped mixes at 3:1, 300,000 measured operations each.</li>
 *   <li>{@code --full} (the default, about 15 minutes): uniform, zipfian, scan-polluted and
 *       HBase-shaped 64 KB, and zipfian mixed sizes, each at 1:1, 3:1, 9:1; 800,000 operations.</li>
 * </ul>
 * Warm-up defaults to three times the number of blocks the cache holds.
 *
 * <p>Concurrency: filled in by {@link #parse} on the main thread, then only read.
 */
final class Options {
  static final String USAGE = String.join("\n",
      "usage: showdown [--quick | --full] [--subjects a,b*] [--scenarios zipf-64k-3x,hbase-*]",
      "                [--capacity 256m] [--threads N] [--ops N] [--warmup N] [--seed N]",
      "                [--out DIR] [--data-dir DIR] [--cache-dir DIR] [--no-charts] [--list]",
      "                [--footprint-blocks N]",
      "  --quick      zipf-64k at 1x/3x/9x + scan-64k-3x + hbase-64k-3x, 300k ops (about 2 min)",
      "  --full       uniform/zipf/scan/hbase-64k and zipf-mixed at 1x/3x/9x, 800k ops (default)",
      "  --subjects   names or globs, e.g. tiercache-*,hbase-lru (default: all)",
      "  --scenarios  pattern-sizes-ratio names or globs over every pattern (uniform, zipf, scan,",
      "               hbase), size (64k, mixed) and ratio (1x, 3x, 9x); any Nx may be named",
      "  --capacity   cache size given to every subject (default 256m)",
      "  --threads    worker threads (default: available processors)",
      "  --cache-dir  where file and mmap engines keep their files (default /dev/shm)",
      "  --footprint-blocks  blocks of the L2 heap-per-block measurement run after the",
      "               scenarios for the L2 subjects (default 100000; 0 skips it)",
      "  --list       print the subjects and scenarios and exit",
      "  --help       print this and exit");

  static final long QUICK_OPS = 300_000;
  static final long FULL_OPS = 800_000;

  String preset = "full";
  long capacity = 256L << 20;
  int threads = Runtime.getRuntime().availableProcessors();
  long ops = FULL_OPS;
  long warmupOps = -1;
  long seed = 20240601L;
  List<Scenario> scenarios = new ArrayList<>();
  String subjects;
  Path out;
  Path dataDir;
  Path cacheDir;
  boolean charts = true;
  boolean list;
  /** Blocks of the footprint measurement of the L2 subjects; 0 skips it. */
  int footprintBlocks = 100_000;
  /** The arguments as given, for the report. */
  String arguments = "";

  /** Parses {@code args}; throws {@link IllegalArgumentException} with a message for the user. */
  static Options parse(String[] args) {
    Options o = new Options();
    o.arguments = String.join(" ", args);
    String scenarioFilter = null;
    Long opsOverride = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick":
          o.preset = "quick";
          break;
        case "--full":
          o.preset = "full";
          break;
        case "--no-charts":
          o.charts = false;
          break;
        case "--list":
          o.list = true;
          break;
        case "--subjects":
          o.subjects = value(args, ++i, a);
          break;
        case "--scenarios":
          scenarioFilter = value(args, ++i, a);
          break;
        case "--capacity":
          o.capacity = Sizes.parseBytes(value(args, ++i, a));
          break;
        case "--threads":
          o.threads = positive(value(args, ++i, a), a);
          break;
        case "--ops":
          opsOverride = (long) positive(value(args, ++i, a), a);
          break;
        case "--warmup":
          o.warmupOps = Long.parseLong(value(args, ++i, a));
          break;
        case "--seed":
          o.seed = Long.parseLong(value(args, ++i, a));
          break;
        case "--out":
          o.out = Paths.get(value(args, ++i, a));
          break;
        case "--data-dir":
          o.dataDir = Paths.get(value(args, ++i, a));
          break;
        case "--footprint-blocks":
          o.footprintBlocks = Integer.parseInt(value(args, ++i, a).trim());
          if (o.footprintBlocks < 0) {
            throw new IllegalArgumentException(a + " must be at least 0, not " + args[i]);
          }
          break;
        case "--cache-dir":
          o.cacheDir = Paths.get(value(args, ++i, a));
          break;
        default:
          throw new IllegalArgumentException("unknown option '" + a + "'\n" + USAGE);
      }
    }
    o.ops = opsOverride != null ? opsOverride : "quick".equals(o.preset) ? QUICK_OPS : FULL_OPS;
    o.scenarios = scenarioFilter != null ? scenarios(scenarioFilter) : presetScenarios(o.preset);
    Path base = defaultBase();
    o.out = o.out != null ? o.out : base.resolve("showdown");
    o.dataDir = o.dataDir != null ? o.dataDir : base.resolve("showdown-data");
    if (o.cacheDir == null) {
      Path shm = Paths.get("/dev/shm");
      o.cacheDir = Files.isDirectory(shm) && Files.isWritable(shm)
          ? shm.resolve("tiercache-showdown") : base.resolve("showdown-cache");
    }
    return o;
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

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
    }
    return args[i];
  }

  private static int positive(String text, String option) {
    int v = Integer.parseInt(text.trim());
    if (v < 1) {
      throw new IllegalArgumentException(option + " must be at least 1, not " + text);
    }
    return v;
  }
}
