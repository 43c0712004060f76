/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.footprint;

import io.tiercache.bench.cli.Progress;
import io.tiercache.bench.data.Blocks;
import io.tiercache.bench.subject.CacheSpec;
import io.tiercache.bench.subject.Subject;
import io.tiercache.bench.subject.Subjects;
import io.tiercache.bench.subject.Writes;
import io.tiercache.bucket.BucketTier;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import picocli.CommandLine;

/**
 * Two questions about an L2's memory, for TierCache's {@code BucketTier} and HBase's
 * {@code BucketCache} side by side:
 * <ol>
 *   <li><b>Heap bytes per cached block.</b> Fill the cache with {@code --blocks} small blocks,
 *       wait until every block is written, and divide the growth of the live heap (after full
 *       GCs) by the blocks cached. The blocks themselves are one shared object, so what remains
 *       is the cache's own per-block metadata.</li>
 *   <li><b>Utilisation after a block-size shift.</b> Fill with 16 KB blocks to twice the capacity,
 *       then write 64 KB blocks for four times the capacity, and report
 *       {@code (capacity - getFreeSize()) / capacity}: the share of the cache still usable, which
 *       drops when memory stays stranded in buckets of the old size.</li>
 * </ol>
 *
 * <p>Run: {@code java -Xms2g -Xmx2g -XX:MaxDirectMemorySize=3g -jar
 * benchmarks/target/benchmarks.jar footprint [--blocks 100000] [--subjects a,b]}. The showdown
 * runs the same measurement for its L2 subjects after its scenarios ({@link #measureAll}), so one
 * run reports every number of issue 4.
 */
public final class Footprint {
  private static final int SMALL = 1024;
  private static final int FILES = 100;

  private Footprint() {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new Command()).execute(args));
  }

  /** {@code footprint}'s command line. */
  @CommandLine.Command(name = "footprint", mixinStandardHelpOptions = true,
      showDefaultValues = true, usageHelpAutoWidth = true,
      description = {"The L2 memory measures: heap bytes per cached block (1 KB blocks), and "
          + "utilisation after a 16 KB -> 64 KB block-size shift in 64 MB, per subject."})
  public static final class Command implements Callable<Integer> {
    @CommandLine.Option(names = "--blocks", paramLabel = "N", defaultValue = "100000",
        description = "Small blocks cached per subject.")
    int blocks;

    @CommandLine.Option(names = "--subjects", paramLabel = "a,b*", defaultValue =
        "tiercache-l2-offheap,hbase-bucket-offheap,tiercache-l2-file,hbase-bucket-file",
        description = "Subject names or globs.")
    String subjects;

    @CommandLine.Option(names = "--scratch", paramLabel = "DIR", description = "Where file "
        + "engines keep their files (default: /dev/shm/tiercache-footprint, else "
        + "target/footprint).")
    Path scratch = Paths.get("/dev/shm").toFile().isDirectory()
        ? Paths.get("/dev/shm/tiercache-footprint") : Paths.get("target/footprint");

    @Override
    public Integer call() throws Exception {
      if (blocks < 1) {
        throw new CommandLine.ParameterException(new CommandLine(this),
            "--blocks must be at least 1, not " + blocks);
      }
      List<Subject> chosen = Subjects.standard().select(subjects);
      Progress progress = new Progress(chosen.size());
      System.out.print(header());
      measureAll(chosen, blocks, scratch,
          r -> System.out.println(row(r).stripTrailing() + "  " + progress.step()));
      return 0;
    }
  }

  /** Whether {@code subject} is an L2 (TierCache's BucketTier or HBase's BucketCache). */
  public static boolean isL2(Subject subject) {
    return subject.name().startsWith("tiercache-l2-") || subject.name().startsWith("hbase-bucket-");
  }

  /**
   * Measures each subject in turn, handing each result to {@code sink} as it is done, and removes
   * the cache files left in {@code scratch}; returns the results in order.
   */
  public static List<Result> measureAll(List<Subject> subjects, int blocks, Path scratch,
      Consumer<Result> sink) throws Exception {
    Files.createDirectories(scratch);
    List<Result> out = new ArrayList<>();
    try {
      // One discarded pass first, so one-time costs (class loading, JIT, thread-local buffers of
      // this thread) do not land on whichever subject happens to be measured first.
      if (!subjects.isEmpty()) {
        measure(subjects.get(0), Math.min(blocks, 20_000), scratch);
      }
      for (Subject s : subjects) {
        Result r = measure(s, blocks, scratch);
        out.add(r);
        sink.accept(r);
      }
    } finally {
      // Cache files on tmpfs hold RAM: remove what the file engines left.
      try (Stream<Path> files = Files.list(scratch)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(f);
        }
      }
    }
    return out;
  }

  /** The header line of {@link #row}. */
  public static String header() {
    return String.format(Locale.ROOT, "%-22s %10s %12s %14s %16s%n", "subject", "blocks",
        "heap delta", "heap B/block", "shift utilisation");
  }

  /** One aligned line for {@code r}. */
  public static String row(Result r) {
    return String.format(Locale.ROOT, "%-22s %10d %10.1f MB %14.1f %15.1f%%%n", r.subject,
        r.cached, r.heapDelta / 1048576.0, r.bytesPerBlock(), 100 * r.shiftUtilisation);
  }

  /** The results as CSV with a header line. */
  public static String csv(List<Result> results) {
    StringBuilder b = new StringBuilder(
        "subject,blocks_cached,heap_delta_bytes,heap_bytes_per_block,shift_utilisation\n");
    for (Result r : results) {
      b.append(String.format(Locale.ROOT, "%s,%d,%d,%.1f,%.4f%n", r.subject, r.cached,
          r.heapDelta, r.bytesPerBlock(), r.shiftUtilisation));
    }
    return b.toString();
  }

  /** What {@link #measure} found for one subject. */
  public static final class Result {
    public String subject;
    public long cached;
    public long heapDelta;
    public double shiftUtilisation;

    public double bytesPerBlock() {
      return cached == 0 ? Double.NaN : (double) heapDelta / cached;
    }
  }

  /** Measures one subject; the caches it builds are shut down before it returns. */
  public static Result measure(Subject subject, int blocks, Path scratch) throws Exception {
    Result r = new Result();
    r.subject = subject.name();
    // Slots of the small blocks are 5 KB; leave room so nothing is evicted. BucketCache needs room
    // for one 2 MB bucket per size class, hence the 64 MB floor.
    long capacity = Math.max(64L << 20, roundUp((long) (blocks * 5.5 * 1024), 4L << 20));
    String[] files = new String[FILES];
    for (int f = 0; f < FILES; f++) {
      files[f] = Blocks.fileName(11, f);
    }
    HFileBlock block = Blocks.random(files[0], 0, SMALL, 7);
    BlockCache cache = subject.create(spec(capacity, SMALL, scratch));
    try {
      long before = liveHeap();
      for (int i = 0; i < blocks; i++) {
        BlockCacheKey key = new BlockCacheKey(files[i % FILES], (long) i << 16, true,
            BlockType.DATA);
        cache.cacheBlock(key, block, false, true);
      }
      Writes.awaitWritten(cache, blocks, 60_000);
      r.cached = cache.getBlockCount();
      r.heapDelta = liveHeap() - before;
    } finally {
      cache.shutdown();
    }
    r.shiftUtilisation = shift(subject, scratch);
    return r;
  }

  private static double shift(Subject subject, Path scratch) throws Exception {
    long capacity = 64L << 20;
    BlockCache cache = subject.create(spec(capacity, 16 * 1024, scratch));
    try {
      HFileBlock small = Blocks.random("shift", 0, 16 * 1024 - 200, 3);
      HFileBlock large = Blocks.random("shift", 0, 64 * 1024 - 200, 5);
      long n = 2 * capacity / (16 * 1024);
      for (long i = 0; i < n; i++) {
        cache.cacheBlock(new BlockCacheKey("small", i << 20, true, BlockType.DATA), small, false,
            true);
      }
      long m = 4 * capacity / (64 * 1024);
      for (long i = 0; i < m; i++) {
        cache.cacheBlock(new BlockCacheKey("large", i << 20, true, BlockType.DATA), large, false,
            true);
      }
      Writes.awaitWritten(cache, -1, 60_000);
      return (double) (capacity - cache.getFreeSize()) / capacity;
    } finally {
      cache.shutdown();
    }
  }

  private static CacheSpec spec(long capacity, int blockSize, Path scratch) {
    // HBase's BucketCache waits for writer-queue space (waitWhenCache) instead of dropping.
    return new CacheSpec(capacity, blockSize, scratch)
        .with("hbase.bucketcache.queue.addition.waittime", "10000");
  }


  private static long liveHeap() {
    for (int i = 0; i < 4; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long roundUp(long v, long unit) {
    return (v + unit - 1) / unit * unit;
  }
}
