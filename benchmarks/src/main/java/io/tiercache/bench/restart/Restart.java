/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.restart;

import io.tiercache.bench.data.Blocks;
import io.tiercache.bench.subject.Writes;
import io.tiercache.bucket.BucketTier;
import io.tiercache.core.config.CacheSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.bucket.BucketCache;
import picocli.CommandLine;

/**
 * How fast does a persistent L2 serve again after a restart? Fills each subject with
 * {@code --blocks} blocks, shuts it down, reopens it on the same files and times the first hit,
 * then measures single-thread hit latency on the reopened cache (mean per hit and release, best of
 * five rounds of 200,000 over 4,096 keys after a warm-up round).
 *
 * <p>Subjects: TierCache {@code pmem:} on each back end (index in the pool, no checkpoint), TierCache
 * {@code file:} with {@code hbase.bucketcache.persistent.path} (checkpoint file), HBase
 * {@code BucketCache} {@code file:} with its persistent path, and, as the latency baseline that
 * does not survive a restart, TierCache {@code offheap} (hit latency only). Files live on tmpfs.
 *
 * <p>Run: {@code java -Xmx2g -XX:MaxDirectMemorySize=2g -jar benchmarks/target/benchmarks.jar
 * restart [--blocks 100000] [--payload 4096] [--scratch /dev/shm/tiercache-restart]}.
 */
public final class Restart {
  private static final int FILES = 100;
  private static final int HIT_OPS = 200_000;

  private Restart() {}

  /** One row of the table. */
  public static final class Row {
    public String subject;
    public long filled;
    public double fillSeconds;
    public double shutdownSeconds;
    public double reopenSeconds = Double.NaN;
    public double firstHitSeconds = Double.NaN;
    public long restored = -1;
    public double hitNanos;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Command()).execute(args));
  }

  /** {@code restart}'s command line. */
  @CommandLine.Command(name = "restart", mixinStandardHelpOptions = true,
      showDefaultValues = true, usageHelpAutoWidth = true,
      description = {"Warm restart of the persistent L2s: fill, shut down, reopen on the same "
          + "files, time the first hit; then the hit latency."})
  public static final class Command implements Callable<Integer> {
    @CommandLine.Option(names = "--blocks", paramLabel = "N", defaultValue = "100000",
        description = "Blocks cached before the restart.")
    int blocks;

    @CommandLine.Option(names = "--payload", paramLabel = "BYTES", defaultValue = "4096",
        description = "Payload bytes per block.")
    int payload;

    @CommandLine.Option(names = "--scratch", paramLabel = "DIR", description = "Where the cache "
        + "files go (default: /dev/shm/tiercache-restart, else target/restart).")
    Path scratch = Paths.get("/dev/shm").toFile().isDirectory()
        ? Paths.get("/dev/shm/tiercache-restart") : Paths.get("target/restart");

    @CommandLine.Option(names = "--subjects", paramLabel = "a,b", split = ",",
        description = "Subjects (default: tiercache-offheap, tiercache-pmem-dax, "
            + "tiercache-pmem-llpl, tiercache-file, hbase-bucket-file).")
    List<String> subjects = Arrays.asList(SUBJECTS);

    @Override
    public Integer call() throws Exception {
      if (blocks < 1 || payload < 1) {
        throw new CommandLine.ParameterException(new CommandLine(this),
            "--blocks and --payload must be at least 1");
      }
      System.out.printf(Locale.ROOT, "%-24s %8s %8s %9s %9s %11s %9s %9s%n", "subject",
          "blocks", "fill s", "shutdown", "reopen s", "1st hit s", "restored", "hit ns");
      for (String name : subjects) {
        Row r = run(name, blocks, payload, scratch);
        System.out.printf(Locale.ROOT, "%-24s %8d %8.2f %9.3f %9.3f %11.3f %9s %9.0f%n",
            r.subject, r.filled, r.fillSeconds, r.shutdownSeconds, r.reopenSeconds,
            r.firstHitSeconds, r.restored < 0 ? "-" : Long.toString(r.restored), r.hitNanos);
      }
      return 0;
    }
  }

  static final String[] SUBJECTS = {"tiercache-offheap", "tiercache-pmem-dax",
      "tiercache-pmem-llpl", "tiercache-file", "hbase-bucket-file"};

  /** Measures one subject; its files are removed before it returns. */
  public static Row run(String subject, int blocks, int payload, Path scratch) throws Exception {
    Files.createDirectories(scratch);
    try {
      return measure(subject, blocks, payload, scratch);
    } finally {
      try (Stream<Path> files = Files.list(scratch)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  private static Row measure(String subject, int blocks, int payload, Path scratch)
      throws Exception {
    Row r = new Row();
    r.subject = subject;
    // Whole slabs of the L2's default size, so that the L2 keeps all of it.
    long capacity = roundUp((long) (blocks * slot(payload) * 1.1), CacheSettings.DEFAULT_SLAB_SIZE);
    String[] files = new String[FILES];
    for (int f = 0; f < FILES; f++) {
      files[f] = Blocks.fileName(13, f);
    }
    HFileBlock block = Blocks.random(files[0], 0, payload, 7);
    BlockCache cache = open(subject, capacity, payload, scratch);
    long t0 = System.nanoTime();
    for (int i = 0; i < blocks; i++) {
      cache.cacheBlock(key(files, i), block, false, true);
    }
    Writes.awaitWritten(cache, blocks, 120_000);
    r.filled = cache.getBlockCount();
    r.fillSeconds = seconds(t0);
    if (!subject.equals("tiercache-offheap")) {
      t0 = System.nanoTime();
      cache.shutdown();
      r.shutdownSeconds = seconds(t0);
      SplittableRandom rnd = new SplittableRandom(5);
      BlockCacheKey first = key(files, rnd.nextInt(blocks));
      t0 = System.nanoTime();
      cache = open(subject, capacity, payload, scratch);
      r.reopenSeconds = seconds(t0);
      Cacheable hit = null;
      long deadline = System.nanoTime() + 300_000_000_000L;
      while (hit == null && System.nanoTime() < deadline) {
        hit = cache.getBlock(first, true, false, false); // HBase restores in the background
        if (hit == null) {
          Thread.onSpinWait();
        }
      }
      r.firstHitSeconds = seconds(t0);
      if (hit != null) {
        hit.release();
      }
      if (cache instanceof BucketTier) { // the restore goes on in the background: count it all
        ((BucketTier) cache).waitForCacheInitialization(300_000);
      }
      r.restored = cache.getBlockCount();
    }
    r.hitNanos = hitLatency(cache, files, blocks);
    cache.shutdown();
    return r;
  }

  /** Mean nanoseconds per hit and release, single thread: the best of five rounds after one. */
  private static double hitLatency(BlockCache cache, String[] files, int blocks) {
    BlockCacheKey[] keys = new BlockCacheKey[4096];
    SplittableRandom rnd = new SplittableRandom(11);
    for (int i = 0; i < keys.length; i++) {
      keys[i] = key(files, rnd.nextInt(blocks));
    }
    long sink = 0;
    double best = Double.NaN;
    for (int round = 0; round < 6; round++) { // round 0 warms up (and verifies restored CRCs)
      long t0 = System.nanoTime();
      for (int i = 0; i < HIT_OPS; i++) {
        Cacheable got = cache.getBlock(keys[i & (keys.length - 1)], true, false, true);
        if (got != null) {
          sink += got.getSerializedLength();
          got.release();
        }
      }
      double ns = (double) (System.nanoTime() - t0) / HIT_OPS;
      if (round > 0 && !(ns >= best)) {
        best = ns;
      }
    }
    return sink == 0 ? Double.NaN : best;
  }

  private static BlockCache open(String subject, long capacity, int payload, Path scratch)
      throws IOException {
    switch (subject) {
      case "tiercache-offheap":
        return tier("offheap", null, capacity, null);
      case "tiercache-pmem-dax":
        return tier("pmem:" + scratch.resolve("tier.pmem"), null, capacity, "dax");
      case "tiercache-pmem-llpl":
        return tier("pmem:" + scratch.resolve("tier.pmem"), null, capacity, "llpl");
      case "tiercache-file":
        return tier("file:" + scratch.resolve("tier.cache"),
            scratch.resolve("tier.ckpt").toString(), capacity, null);
      case "hbase-bucket-file": {
        Configuration conf = new Configuration(false);
        conf.setLong("hbase.bucketcache.queue.addition.waittime", 10_000);
        return new BucketCache("file:" + scratch.resolve("bucket.cache"), capacity,
            payload + 1024, null, 3, 64, scratch.resolve("bucket.persist").toString(),
            BucketCache.DEFAULT_ERROR_TOLERATION_DURATION, conf);
      }
      default:
        throw new IllegalArgumentException("unknown subject " + subject + " (accepted: "
            + String.join(", ", SUBJECTS) + ")");
    }
  }

  private static BucketTier tier(String engine, String persistentPath, long capacity,
      String backend) {
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.ioengine", engine);
    conf.set("hbase.bucketcache.size", (capacity >> 10) + "k");
    if (persistentPath != null) {
      conf.set("hbase.bucketcache.persistent.path", persistentPath);
    }
    if (backend != null) {
      conf.set("tiercache.pmem.backend", backend);
    }
    return new BucketTier(conf);
  }

  private static BlockCacheKey key(String[] files, int i) {
    return new BlockCacheKey(files[i % FILES], (long) i << 16, true, BlockType.DATA);
  }


  /** The default bucket size a block of {@code payload} bytes lands in (room for its header). */
  private static int slot(int payload) {
    for (int size : CacheSettings.L2_BUCKET_SIZES.defaultValue()) {
      if (size >= payload + 1024) {
        return size;
      }
    }
    throw new IllegalArgumentException("payload " + payload + " exceeds the largest bucket");
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static long roundUp(long v, long to) {
    return (v + to - 1) / to * to;
  }
}
