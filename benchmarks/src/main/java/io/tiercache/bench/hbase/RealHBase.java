/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.hbase;

import io.tiercache.bench.cli.Progress;
import io.tiercache.bench.subject.Scratch;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.PeRunner.ClientResult;
import org.apache.hadoop.hbase.PeRunner;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import picocli.CommandLine;

/**
 * The showdown's real-HBase mode: HBase's own PerformanceEvaluation {@code randomRead}
 * ({@code --nomapred --latency}) against an in-process HBase (ZooKeeper, one HMaster and one
 * RegionServer, HBase's {@link LocalHBaseCluster} as standalone HBase runs it, on the local file
 * system), once per block cache and database:cache ratio:
 * <ul>
 *   <li>{@code hbase-lru}: HBase's LruBlockCache holding the whole cache budget on heap;</li>
 *   <li>{@code hbase-combined}: HBase's LruBlockCache L1 (an eighth) + offheap BucketCache L2
 *       (which needs at least 30 MB: room for one 2 MB bucket per size class);</li>
 *   <li>{@code tiercache}: {@code TieredRegionServer} installing {@code TieredBlockCache}, same
 *       split and the same {@code hbase.bucketcache.*} keys.</li>
 * </ul>
 * Each run loads PE's table ({@code sequentialWrite}, 26-byte keys, 1000-byte values, no WAL) to
 * {@code ratio} times the cache budget (40 MB by default), flushes it, warms up with one {@code
 * randomRead} pass (or {@code --warmups N}), then measures one more. Hit ratios are the cache's own
 * counters over the measured pass. Each subject and ratio runs in a fresh JVM with this JVM's
 * flags. PE's clients pick rows with unseeded randoms, so runs are not repeatable request for
 * request; compare subjects of the same run, and, since a pair of runs moves by up to a quarter
 * from one run to the next, over several rounds ({@code --rounds}: the subjects' order alternates
 * from round to round, and the report gives the ratios' median, geometric mean and range).
 *
 * <pre>
 * java -Xms3g -Xmx3g -XX:MaxDirectMemorySize=2g -jar benchmarks/target/benchmarks.jar real-hbase
 * java ... real-hbase --quick            (3:1 only, 4,000 gets per pass: a smoke run)
 * </pre>
 */
public final class RealHBase {
  static final String TABLE = "TestTable";
  /** Bytes PE's sequentialWrite stores per row (26-byte key, 1000-byte value, KeyValue framing). */
  private static final long ROW_BYTES = 1_070;

  private final long cacheBytes;
  private final int[] ratios;
  private final List<String> subjects;
  private final long gets;
  private final int clients;
  private final Path workDir;
  private int rounds = 1;
  private int warmups = 1;

  RealHBase(long cacheBytes, int[] ratios, List<String> subjects, long gets, int clients,
      Path workDir) {
    this.cacheBytes = cacheBytes;
    this.ratios = ratios;
    this.subjects = subjects;
    this.gets = gets;
    this.clients = clients;
    this.workDir = workDir;
  }

  /**
   * Runs every subject {@code n} times per ratio, in rounds whose order alternates (the first
   * subject first in odd rounds, last in even ones), so that neither subject always runs first.
   */
  RealHBase rounds(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("--rounds is " + n + "; expected at least 1");
    }
    this.rounds = n;
    return this;
  }

  /**
   * Runs {@code n} unmeasured {@code randomRead} passes before the measured one: the JIT is still
   * compiling HBase's get path during a pass after a single warm-up (docs/benchmarks.md).
   */
  RealHBase warmups(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("--warmups is " + n + "; expected at least 1");
    }
    this.warmups = n;
    return this;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Command()).execute(args));
  }

  /** {@code real-hbase}'s command line. */
  @CommandLine.Command(name = "real-hbase", mixinStandardHelpOptions = true,
      showDefaultValues = true, usageHelpAutoWidth = true,
      description = {"HBase's own PerformanceEvaluation (sequentialWrite, then randomRead with "
          + "--latency) against an in-process HBase per subject and ratio, each in a fresh JVM."})
  public static final class Command implements Callable<Integer> {
    @CommandLine.Option(names = "--quick", description = "A smoke run: 3:1 only, 4,000 gets "
        + "per pass (unless --ratios or --gets say otherwise).")
    boolean quick;

    @CommandLine.Option(names = "--cache-mb", paramLabel = "MB", defaultValue = "40",
        description = "Block cache size of the RegionServer.")
    long cacheMb;

    @CommandLine.Option(names = "--ratios", paramLabel = "N,N", split = ",",
        description = "database:cache ratios (default: 3,9; 3 with --quick).")
    int[] ratios;

    @CommandLine.Option(names = "--gets", paramLabel = "N",
        description = "Gets per randomRead pass (default: 20000; 4000 with --quick).")
    Long gets;

    @CommandLine.Option(names = "--subjects", paramLabel = "a,b", split = ",",
        defaultValue = "hbase-lru,hbase-combined,tiercache",
        description = "Block caches: hbase-lru, hbase-combined, tiercache.")
    List<String> subjects;

    @CommandLine.Option(names = "--rounds", paramLabel = "N", defaultValue = "1",
        description = "Runs of every subject per ratio, the subjects' order alternating from "
            + "round to round; with more than one, the report gives each round's TierCache / "
            + "HBase ratios and their median, geometric mean and range.")
    int rounds;

    @CommandLine.Option(names = "--warmups", paramLabel = "N", defaultValue = "1",
        description = "Unmeasured randomRead passes before the measured one.")
    int warmups;

    @CommandLine.Option(names = "--out", paramLabel = "DIR",
        defaultValue = "benchmarks/target/real-hbase", description = "Where the report goes.")
    Path out;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Set by the parent for the JVM it starts per subject and ratio. */
    @CommandLine.Option(names = "--child", hidden = true)
    String child;

    @Override
    public Integer call() {
      if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
      }
      if (rounds < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--rounds is " + rounds + "; expected at least 1");
      }
      if (warmups < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--warmups is " + warmups + "; expected at least 1");
      }
      int[] r = ratios != null ? ratios : quick ? new int[] {3} : new int[] {3, 9};
      long g = gets != null ? gets : quick ? 4_000 : 20_000;
      try {
        RealHBase bench = new RealHBase(cacheMb << 20, r, subjects, g, 2, out).rounds(rounds)
            .warmups(warmups);
        if (child != null) {
          bench.runChild(child, r[0]);
        } else {
          bench.runAll(cacheMb);
        }
      } catch (Exception e) {
        e.printStackTrace();
        return 1; // main exits: HBase's and ZooKeeper's non-daemon threads would keep the JVM up
      }
      return 0;
    }
  }

  /** One row of the report. */
  static final class Row {
    String subject;
    int ratio;
    long rows;
    double opsPerSec;
    double meanUs;
    double p50Us;
    double p99Us;
    double p999Us;
    long maxUs;
    double hitRatio;
    double l1HitRatio = Double.NaN;
    double l2HitRatio = Double.NaN;
    int round = 1;
  }

  /**
   * Runs every subject and ratio, each in a fresh JVM (this jar, this JVM's flags), so no run
   * inherits another's JIT state, heap or HBase's JVM-wide metrics registrations.
   */
  void runAll(long cacheMb) throws Exception {
    Files.createDirectories(workDir);
    List<Row> rows = new ArrayList<>();
    long started = System.nanoTime();
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    String jar = Paths.get(RealHBase.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI()).toString();
    Progress progress = new Progress(ratios.length * subjects.size() * rounds);
    for (int ratio : ratios) {
      for (int round = 1; round <= rounds; round++) {
        for (String subject : roundOrder(round)) {
          System.out.printf(Locale.ROOT, "real-hbase: %s at %d:1%s ...%n", subject, ratio,
              rounds == 1 ? "" : ", round " + round);
          List<String> cmd = new ArrayList<>();
          cmd.add(java);
          cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
          cmd.addAll(Arrays.asList("-jar", jar, "real-hbase", "--child", subject, "--ratios",
              Integer.toString(ratio), "--cache-mb", Long.toString(cacheMb), "--gets",
              Long.toString(gets), "--warmups", Integer.toString(warmups), "--out",
              workDir.toString()));
          Path rowFile = rowFile(subject, ratio);
          Files.deleteIfExists(rowFile); // an earlier round's row must not pass for this one's
          Process p = new ProcessBuilder(cmd).inheritIO().start();
          int exit = p.waitFor();
          if (exit != 0 || !Files.exists(rowFile)) {
            throw new IllegalStateException("the " + subject + " run at " + ratio
                + ":1 failed (exit " + exit + "); its output is above");
          }
          Row row = readRow(rowFile);
          row.round = round;
          rows.add(row);
          System.out.println(progress.step() + " " + format(row));
        }
      }
    }
    String report = report(rows, (System.nanoTime() - started) / 1e9);
    System.out.println(report);
    Files.write(workDir.resolve("real-hbase.txt"), report.getBytes(StandardCharsets.UTF_8));
    writeCsv(rows, workDir.resolve("real-hbase.csv"));
  }

  /**
   * Every how many of {@code rows} rows a randomRead pass reads one, for about {@code gets} gets:
   * PE reads once per {@code (long) (1 / sampleRate)} rows, so a rate above one half reads every
   * row (before 2026-11-29 {@code --gets 60000} passed 0.51 over 117,597 rows and read them all).
   */
  static long readEvery(long rows, long gets) {
    return Math.max(1, Math.round((double) rows / Math.max(1, gets)));
  }

  /** The {@code --sampleRate} for which PE's {@code (long) (1f / rate)} is {@code every}. */
  static String sampleRate(long every) {
    return Float.toString((float) (1.0 / (every + 0.5)));
  }

  /** The subjects in the order round {@code round} (from 1) runs them. */
  List<String> roundOrder(int round) {
    List<String> order = new ArrayList<>(subjects);
    if (round % 2 == 0) {
      Collections.reverse(order);
    }
    return order;
  }

  /** One subject at one ratio, in this JVM; writes its row for the parent. */
  void runChild(String subject, int ratio) throws Exception {
    Row row = runOne(subject, ratio);
    Files.createDirectories(rowFile(subject, ratio).getParent());
    writeCsv(List.of(row), rowFile(subject, ratio));
  }

  private Path rowFile(String subject, int ratio) {
    return workDir.resolve("rows").resolve(subject + "-" + ratio + "x.csv");
  }

  private static Row readRow(Path file) throws IOException {
    String[] f = Files.readAllLines(file, StandardCharsets.UTF_8).get(1).split(",");
    Row r = new Row();
    r.subject = f[0];
    r.ratio = Integer.parseInt(f[1]);
    r.rows = Long.parseLong(f[2]);
    r.opsPerSec = Double.parseDouble(f[3]);
    r.meanUs = Double.parseDouble(f[4]);
    r.p50Us = Double.parseDouble(f[5]);
    r.p99Us = Double.parseDouble(f[6]);
    r.p999Us = Double.parseDouble(f[7]);
    r.maxUs = Long.parseLong(f[8]);
    r.hitRatio = Double.parseDouble(f[9]);
    r.l1HitRatio = Double.parseDouble(f[10]);
    r.l2HitRatio = Double.parseDouble(f[11]);
    return r;
  }

  /** The keys an operator sets for each subject. */
  @SuppressWarnings("fallthrough") // tiercache adds two keys to hbase-combined's
  Map<String, String> subjectKeys(String subject) {
    Map<String, String> keys = new LinkedHashMap<>();
    long l1 = cacheBytes / 8;
    switch (subject) {
      case "hbase-lru":
        keys.put("hfile.block.cache.memory.size", Long.toString(cacheBytes));
        break;
      case "tiercache":
        keys.put("hbase.regionserver.impl", "io.tiercache.combined.TieredRegionServer");
        keys.put("hbase.blockcache.class", "io.tiercache.combined.TieredBlockCache");
        // fall through: the same cache keys as HBase's combined cache
      case "hbase-combined":
        keys.put("hfile.block.cache.memory.size", Long.toString(l1));
        keys.put("hbase.bucketcache.ioengine", "offheap");
        keys.put("hbase.bucketcache.size", Long.toString((cacheBytes - l1) >> 20));
        break;
      default:
        throw new IllegalArgumentException("unknown real-hbase subject " + subject
            + "; expected hbase-lru, hbase-combined or tiercache");
    }
    return keys;
  }

  private Row runOne(String subject, int ratio) throws Exception {
    Path dir = workDir.resolve(subject + "-" + ratio + "x");
    Scratch.deleteTree(dir);
    Files.createDirectories(dir);
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.rootdir", dir.resolve("hbase").toUri().toString());
    conf.set("hbase.tmp.dir", dir.resolve("tmp").toString());
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    conf.set("hbase.wal.provider", "filesystem");
    conf.setBoolean(LocalHBaseCluster.ASSIGN_RANDOM_PORTS, true);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    subjectKeys(subject).forEach(conf::set);

    MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
    int zkPort = zk.startup(dir.resolve("zk").toFile());
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    LocalHBaseCluster cluster = null;
    try {
      cluster = new LocalHBaseCluster(conf, 1, 1);
      cluster.startup();
      LocalHBaseCluster started = cluster;
      waitFor("the cluster to start", () -> started.getActiveMaster() != null
          && started.getActiveMaster().isInitialized()
          && !started.getActiveMaster().getServerManager().getOnlineServersList().isEmpty());
      HRegionServer rs = cluster.getRegionServer(0);
      long loadRows = ratio * cacheBytes / ROW_BYTES;
      PeRunner.run(conf, "--nomapred", "--rows=" + loadRows, "--valueSize=1000",
          "--writeToWAL=false", "sequentialWrite", "1");
      try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
        admin.flush(TableName.valueOf(TABLE));
      }
      BlockCache cache = rs.getBlockCache().orElseThrow(IllegalStateException::new);
      String[] read = {"--nomapred", "--latency", "--rows=" + loadRows / clients,
          "--sampleRate=" + sampleRate(readEvery(loadRows, gets)), "randomRead",
          Integer.toString(clients)};
      for (int i = 0; i < warmups; i++) {
        PeRunner.run(conf, read); // warm-up passes
      }
      long[] before = CacheProbe.counters(cache);
      long[] workBefore = CacheProbe.work(cache);
      ClientResult[] results = PeRunner.run(conf, read);
      long[] after = CacheProbe.counters(cache);
      System.out.println(CacheProbe.residency(subject, ratio, cache, dir.resolve("hbase")));
      if (workBefore != null) {
        System.out.println(
            CacheProbe.workLine(subject, ratio, workBefore, CacheProbe.work(cache),
                after[1] - before[1]));
      }
      return summarize(subject, ratio, loadRows, results, before, after);
    } finally {
      if (cluster != null) {
        cluster.shutdown();
        cluster.join();
      }
      zk.shutdown();
      Scratch.deleteTree(dir);
    }
  }

  private static Row summarize(String subject, int ratio, long loadRows, ClientResult[] results,
      long[] before, long[] after) {
    Row row = new Row();
    row.subject = subject;
    row.ratio = ratio;
    row.rows = loadRows;
    for (ClientResult r : results) {
      row.opsPerSec += r.operations * 1000.0 / Math.max(1, r.durationMs);
      row.meanUs += r.meanUs / results.length;
      row.p50Us += r.p50Us / results.length;
      row.p99Us += r.p99Us / results.length;
      row.p999Us += r.p999Us / results.length;
      row.maxUs = Math.max(row.maxUs, r.maxUs);
    }
    row.hitRatio = ratio(after[0] - before[0], after[1] - before[1]);
    if (after[3] + after[5] > 0) {
      row.l1HitRatio = ratio(after[2] - before[2], after[3] - before[3]);
      row.l2HitRatio = ratio(after[4] - before[4], after[5] - before[5]);
    }
    return row;
  }

  private static double ratio(long hits, long requests) {
    return requests == 0 ? Double.NaN : (double) hits / requests;
  }

  private String format(Row r) {
    return String.format(Locale.ROOT,
        "%-15s %3d:1 %9d %10.0f %8.0f %8.0f %8.0f %9.0f %9d %7.1f%% %7s %7s", r.subject, r.ratio,
        r.rows, r.opsPerSec, r.meanUs, r.p50Us, r.p99Us, r.p999Us, r.maxUs, 100 * r.hitRatio,
        pct(r.l1HitRatio), pct(r.l2HitRatio)) + (rounds > 1 ? String.format(Locale.ROOT, " %5d",
        r.round) : "");
  }

  private static String pct(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
  }

  private String report(List<Row> rows, double seconds) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "real-hbase: PerformanceEvaluation randomRead, %d "
        + "clients, cache budget %d MB, %.0f s%n", clients, cacheBytes >> 20, seconds));
    b.append(String.format(Locale.ROOT, "%-15s %5s %9s %10s %8s %8s %8s %9s %9s %8s %7s %7s%s%n",
        "subject", "ratio", "rows", "gets/s", "mean us", "p50 us", "p99 us", "p99.9 us",
        "max us", "hit", "L1 hit", "L2 hit", rounds > 1 ? " round" : ""));
    for (Row r : rows) {
      b.append(format(r)).append('\n');
    }
    b.append("\nTierCache / HBase, same run (latency: below 1 is better; gets/s: above 1 is "
        + "better):\n");
    Map<String, List<double[]>> perPair = new LinkedHashMap<>(); // gets/s and p99 ratios
    for (Row t : rows) {
      if (!t.subject.equals("tiercache")) {
        continue;
      }
      for (Row h : rows) {
        if (h.ratio == t.ratio && h.round == t.round && h.subject.startsWith("hbase")) {
          b.append(String.format(Locale.ROOT,
              "%d:1%s tiercache vs %-15s gets/s %.2fx  p50 %.2fx  p99 %.2fx  p99.9 %.2fx  "
                  + "hit %+.1f pt%n", t.ratio, rounds > 1 ? " round " + t.round : "", h.subject,
              t.opsPerSec / h.opsPerSec, t.p50Us / h.p50Us, t.p99Us / h.p99Us,
              t.p999Us / h.p999Us, 100 * (t.hitRatio - h.hitRatio)));
          perPair.computeIfAbsent(t.ratio + ":1 tiercache vs " + h.subject, k -> new ArrayList<>())
              .add(new double[] {t.opsPerSec / h.opsPerSec, t.p99Us / h.p99Us});
        }
      }
    }
    if (rounds > 1) {
      b.append("\nOver the rounds (median, geometric mean, lowest to highest):\n");
      perPair.forEach((pair, ratios) -> b.append(String.format(Locale.ROOT,
          "%s  gets/s %s  p99 %s%n", pair, spread(ratios, 0), spread(ratios, 1))));
    }
    return b.toString();
  }

  /** Median, geometric mean and range of column {@code i} of {@code ratios}, as text. */
  static String spread(List<double[]> ratios, int i) {
    double[] v = ratios.stream().mapToDouble(r -> r[i]).sorted().toArray();
    double median = v.length % 2 == 1 ? v[v.length / 2]
        : Math.sqrt(v[v.length / 2 - 1] * v[v.length / 2]);
    double logSum = 0;
    for (double x : v) {
      logSum += Math.log(x);
    }
    return String.format(Locale.ROOT, "%.2fx, %.2fx (%.2fx to %.2fx)", median,
        Math.exp(logSum / v.length), v[0], v[v.length - 1]);
  }

  private static void writeCsv(List<Row> rows, Path file) throws IOException {
    try (PrintStream out = new PrintStream(file.toFile(), "UTF-8")) {
      out.println("subject,ratio,rows,gets_per_sec,mean_us,p50_us,p99_us,p999_us,max_us,"
          + "hit_ratio,l1_hit_ratio,l2_hit_ratio,round");
      for (Row r : rows) {
        out.printf(Locale.ROOT, "%s,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%.4f,%.4f,%.4f,%d%n",
            r.subject, r.ratio, r.rows, r.opsPerSec, r.meanUs, r.p50Us, r.p99Us, r.p999Us,
            r.maxUs, r.hitRatio, r.l1HitRatio, r.l2HitRatio, r.round);
      }
    }
  }

  private static void waitFor(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + 180_000_000_000L;
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after 180 s waiting for " + what);
      }
      Thread.sleep(100);
    }
  }

}
