/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.scale;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.tiercache.bench.cli.Git;
import io.tiercache.bench.cli.Progress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * Issue 15's measure of a large persistent L2: a {@code file:} L2 of 4 KB blocks on the local
 * disk at 1 M, 4 M and more blocks, under a steady insert/evict churn, TierCache and HBase's
 * BucketCache side by side ({@link ScaleRun}, {@link ScaleKill}; subjects in
 * {@link ScaleCache}). Reports per subject and size: bytes the index persistence writes per
 * interval and the heap it allocates, heap and direct memory per cached block, CLOCK slots per
 * eviction, hit latency, clean-restart and SIGKILL-restart time to first hit and restore time,
 * blocks kept after the kill and wrong bytes served; then TierCache/HBase ratios.
 *
 * <p>Run: {@code java -Xmx4g -XX:MaxDirectMemorySize=1g -jar benchmarks/target/benchmarks.jar
 * scale [--blocks 1m,4m]}. Writes {@code scale.json}, {@code scale.csv} and {@code scale.txt}
 * under {@code --out}.
 */
public final class Scale {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT);
  /** Space kept free on a file system beyond what a run needs. */
  private static final long MARGIN = 2L << 30;

  private Scale() {}

  /** {@code scale}'s command line. */
  @CommandLine.Command(name = "scale", mixinStandardHelpOptions = true,
      showDefaultValues = true, usageHelpAutoWidth = true,
      description = {"A large persistent L2 (4 KB blocks, file: on the local disk) under churn: "
          + "persistence bytes and heap per interval, memory per block, eviction work, hit "
          + "latency, restart and SIGKILL recovery; TierCache and HBase BucketCache side by "
          + "side."})
  public static final class Command implements Callable<Integer> {
    @CommandLine.Option(names = "--blocks", paramLabel = "N[,N...]", split = ",",
        defaultValue = "1m,4m", converter = BlockCount.class,
        description = "Block counts (k = 1024, m = 1024 x 1024), one run per count.")
    List<Long> blocks;

    @CommandLine.Option(names = "--subjects", paramLabel = "a,b", split = ",",
        defaultValue = "tiercache-file,tiercache-pmem,hbase-bucket-file",
        description = "Subjects: tiercache-file, tiercache-pmem, hbase-bucket-file.")
    List<String> subjects;

    @CommandLine.Option(names = "--dir", paramLabel = "DIR",
        description = "Where the file: caches live, on the local disk (default: OUT/data).")
    Path dir;

    @CommandLine.Option(names = "--pmem-dir", paramLabel = "DIR",
        defaultValue = "/dev/shm/tiercache-scale",
        description = "Where the pmem: pool lives (emulated pmem: a tmpfs).")
    Path pmemDir;

    @CommandLine.Option(names = "--pmem-max-blocks", paramLabel = "N", defaultValue = "1m",
        converter = BlockCount.class,
        description = "Largest block count run on pmem: (its pool takes that much tmpfs memory).")
    long pmemMaxBlocks;

    @CommandLine.Option(names = "--hbase-max-blocks", paramLabel = "N", defaultValue = "1m",
        converter = BlockCount.class,
        description = "Largest block count run on HBase's BucketCache (its restart reads and "
            + "verifies its whole map: 1.5 min at 1m blocks here, beyond the run's time budget "
            + "at 4m).")
    long hbaseMaxBlocks;

    @CommandLine.Option(names = "--out", paramLabel = "DIR",
        description = "Where the reports go (default: benchmarks/target/scale, else "
            + "target/scale).")
    Path out = Files.isDirectory(Paths.get("benchmarks", "target"))
        ? Paths.get("benchmarks", "target", "scale") : Paths.get("target", "scale");

    @CommandLine.Option(names = "--churn-rate", paramLabel = "BLOCKS/S", defaultValue = "5000",
        description = "New blocks inserted per second during the churn (each evicts one).")
    int rate;

    @CommandLine.Option(names = "--churn-seconds", paramLabel = "S", defaultValue = "20",
        description = "Measured churn per subject and size (after a warm-up of up to 2 s).")
    double churnSeconds;

    @CommandLine.Option(names = "--reads", paramLabel = "N", defaultValue = "4",
        description = "Reads of random recent blocks after each insert (hit latency).")
    int reads;

    @CommandLine.Option(names = "--kill-sync-ms", paramLabel = "MS", defaultValue = "1000",
        description = "The SIGKILL child's sync period; it is killed within one period of its "
            + "second sync.")
    int syncMs;

    @CommandLine.Option(names = "--no-kill", description = "Skip the SIGKILL round.")
    boolean noKill;

    @CommandLine.Option(names = "--child-heap", paramLabel = "SIZE", defaultValue = "3g",
        description = "-Xmx of the SIGKILL round's child JVM.")
    String childHeap;

    @CommandLine.Option(names = "--seed", paramLabel = "N", defaultValue = "42",
        description = "Seed of the reads, the samples and the kill time.")
    long seed;

    @Override
    public Integer call() throws Exception {
      if (rate < 1 || churnSeconds <= 0 || reads < 0 || syncMs < 1 || blocks.isEmpty()) {
        throw new CommandLine.ParameterException(new CommandLine(this),
            "--churn-rate, --churn-seconds and --kill-sync-ms must be positive, --reads >= 0");
      }
      for (String s : subjects) {
        if (!ScaleCache.SUBJECTS.contains(s)) {
          throw new CommandLine.ParameterException(new CommandLine(this), "unknown subject "
              + s + " (accepted: " + String.join(", ", ScaleCache.SUBJECTS) + ")");
        }
      }
      Path data = dir != null ? dir : out.resolve("data");
      Files.createDirectories(data);
      Files.createDirectories(out);
      String refused = checkSpace(data);
      if (refused != null) {
        System.err.println(refused);
        return 2;
      }
      return run(data) ? 0 : 1;
    }

    /** Null if the largest file: run fits the disk, else why not. */
    private String checkSpace(Path data) throws IOException {
      long largest = blocks.stream().max(Long::compare).orElse(0L);
      long need = ScaleCache.capacity(ScaleCache.HBASE_FILE, largest) + MARGIN;
      long free = Files.getFileStore(data).getUsableSpace();
      if (free < need) {
        return String.format(Locale.ROOT, "scale: %s has %,d MB free; %,d blocks of 4 KB need "
            + "%,d MB (cache file plus a 2 GB margin). Use fewer --blocks or another --dir.",
            data, free >> 20, largest, need >> 20);
      }
      return null;
    }

    private boolean run(Path data) throws Exception {
      List<ScaleRow> rows = new ArrayList<>();
      int cells = blocks.size() * subjects.size();
      double cost = 0;
      for (long b : blocks) {
        cost += b * subjects.size();
      }
      Progress progress = new Progress(cells, cost, System::nanoTime);
      Map<String, String> meta = new LinkedHashMap<>();
      meta.put("date", Instant.now().toString());
      meta.put("commit", Git.commit());
      meta.put("load", load());
      meta.put("command", "scale --blocks " + blocks + " --subjects " + subjects
          + " --churn-rate " + rate + " --churn-seconds " + churnSeconds + " --reads " + reads
          + " --seed " + seed);
      System.out.println("scale: " + meta);
      for (long b : blocks) {
        for (String s : subjects) {
          ScaleRow row = one(s, b, data);
          if (row != null) {
            rows.add(row);
            write(rows, meta, false); // what is done so far survives an interrupted run
          }
          System.out.println(progress.step(b) + " " + s + " at " + b + " blocks done");
        }
      }
      meta.put("load after", load());
      write(rows, meta, true);
      System.out.println("scale: reports in " + out.toAbsolutePath());
      return true;
    }

    /** Writes the text, CSV and JSON reports of {@code rows}; prints the text at the end. */
    private void write(List<ScaleRow> rows, Map<String, String> meta, boolean last)
        throws IOException {
      String text = ScaleReport.text(rows, meta);
      if (last) {
        System.out.println(text);
      }
      Files.write(out.resolve("scale.txt"), text.getBytes(StandardCharsets.UTF_8));
      Files.write(out.resolve("scale.csv"),
          ScaleReport.csv(rows).getBytes(StandardCharsets.UTF_8));
      Map<String, Object> json = new LinkedHashMap<>(meta);
      json.put("rows", rows);
      JSON.writeValue(out.resolve("scale.json").toFile(), json);
    }

    private ScaleRow one(String subject, long b, Path data) throws Exception {
      boolean pmem = subject.equals(ScaleCache.TIERCACHE_PMEM);
      if (pmem && b > pmemMaxBlocks) {
        System.out.println("  " + subject + ": skipped at " + b + " blocks (--pmem-max-blocks "
            + pmemMaxBlocks + ")");
        return null;
      }
      if (subject.equals(ScaleCache.HBASE_FILE) && b > hbaseMaxBlocks) {
        System.out.println("  " + subject + ": skipped at " + b + " blocks (--hbase-max-blocks "
            + hbaseMaxBlocks + ")");
        return null;
      }
      Path home = ScaleCache.home(subject, data, pmemDir);
      deleteTree(home);
      Files.createDirectories(home);
      long free = Files.getFileStore(home).getUsableSpace();
      if (free < ScaleCache.capacity(subject, b) + (pmem ? 1L << 30 : MARGIN)) {
        System.out.printf(Locale.ROOT, "  %s: skipped at %,d blocks: %s has %,d MB free%n",
            subject, b, home, free >> 20);
        return null;
      }
      try {
        ScaleRun run = new ScaleRun(subject, b, home, rate, reads, churnSeconds, seed,
            System.out::println);
        run.run();
        if (!noKill) {
          ScaleKill.run(subject, b, home, run.next(), rate, syncMs, childHeap, seed,
              run.row(), System.out::println);
        }
        return run.row();
      } finally {
        deleteTree(home);
      }
    }
  }

  /** Parses {@code 1m}, {@code 512k} or a plain count. */
  static final class BlockCount implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      long unit = 1;
      if (v.endsWith("k")) {
        unit = 1024;
      } else if (v.endsWith("m")) {
        unit = 1024 * 1024;
      }
      long n = Long.parseLong(unit == 1 ? v : v.substring(0, v.length() - 1)) * unit;
      if (n < 1024) {
        throw new CommandLine.TypeConversionException("'" + value + "': at least 1024 blocks");
      }
      return n;
    }
  }

  private static String load() {
    return String.format(Locale.ROOT, "%.2f",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  /**
   * Deletes {@code dir} and everything under it. A few passes, 200 ms apart: HBase's
   * {@code BucketCache} may still write its persistence file for a moment after its shutdown
   * returns (a CI run failed with {@code DirectoryNotEmptyException} on the
   * {@code hbase-bucket-file} subject's directory; a file vanishing mid-walk is retried the
   * same way); the last pass's failure is thrown.
   */
  static void deleteTree(Path dir) throws IOException {
    for (int pass = 1; ; pass++) {
      try {
        deleteTreeOnce(dir);
        return;
      } catch (DirectoryNotEmptyException | NoSuchFileException | UncheckedIOException e) {
        if (pass == 5) {
          throw e instanceof UncheckedIOException ? ((UncheckedIOException) e).getCause()
              : (IOException) e;
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while deleting " + dir, e);
        }
      }
    }
  }

  private static void deleteTreeOnce(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
