/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.scale;

import io.tiercache.bench.Main;
import io.tiercache.bucket.BucketTier;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.Cacheable;

/**
 * The SIGKILL round: a child JVM ({@link ScaleChild}) reopens the subject the parent shut down,
 * churns it and syncs every {@code syncMs}; after its second sync the parent waits a seeded
 * random time under one sync period and kills it with SIGKILL ({@link Process#destroyForcibly}).
 * Then the parent reopens the subject on the same files, times the first hit on a block of the
 * child's last durable bitmap, and reads every block the child may have cached: each hit is
 * verified, and the blocks of the bitmap served are counted as kept.
 *
 * <p>Blocks the churn evicted between the last sync and the kill count as not kept: at most
 * {@code rate × syncMs} of them, which the report states beside the share.
 */
final class ScaleKill {
  private ScaleKill() {}

  static void run(String subject, long blocks, Path home, long start, int rate, int syncMs,
      String childHeap, long seed, ScaleRow row, Consumer<String> log) throws Exception {
    Files.deleteIfExists(home.resolve("kill.bits"));
    Process child = startChild(subject, blocks, home, start, rate, syncMs, childHeap);
    SplittableRandom rnd = new SplittableRandom(seed);
    long hi = start;
    int synced = 0;
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        if (line.startsWith("READY")) {
          log.accept("  " + subject + ": child restored in " + line.substring(6).trim()
              + " ms; churning");
        } else if (line.startsWith("FAILED")) {
          row.note += "kill round: the child failed: " + line.substring(7) + "; ";
          log.accept("  " + subject + ": the SIGKILL child failed: " + line.substring(7));
        } else if (line.startsWith("SYNCED")) {
          hi = Long.parseLong(line.split(" ")[3]);
          if (++synced == 2) {
            Thread.sleep(rnd.nextInt(Math.max(1, syncMs)));
            child.destroyForcibly();
            break;
          }
        }
      }
    } finally {
      child.destroyForcibly();
      if (!child.waitFor(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the child JVM did not die");
      }
    }
    if (synced == 0) {
      row.note += "kill round: the child synced nothing (see " + home.resolve("child.err")
          + "); ";
      return;
    }
    long[] bitmap = readBitmap(home.resolve("kill.bits"));
    long lo = bitmap[0];
    hi = Math.max(hi, bitmap[1]);
    List<Long> sample = sample(bitmap, seed);
    long t0 = System.nanoTime();
    BlockCache cache = ScaleRun.reopen(subject, blocks, home, "the restart after SIGKILL", row,
        log);
    if (cache == null) {
      return;
    }
    row.killFirstHitMillis = ScaleRun.firstHit(cache, sample, t0);
    if (cache instanceof BucketTier) {
      ((BucketTier) cache).waitForCacheInitialization(600_000);
    }
    row.killRestoreMillis = ScaleRun.millis(t0);
    long synced0 = 0;
    long kept = 0;
    long wrong = 0;
    long end = hi + (long) rate * syncMs / 1000 * 2 + 1000; // what the child may have added
    for (long i = lo; i < end; i++) {
      boolean inBitmap = i < bitmap[1] && bit(bitmap, i - lo);
      synced0 += inBitmap ? 1 : 0;
      Cacheable got = cache.getBlock(ScaleBlocks.key(i), true, false, false);
      if (got != null) {
        if (!ScaleBlocks.verify(i, got)) {
          wrong++;
        } else if (inBitmap) {
          kept++;
        }
        got.release();
      }
    }
    cache.shutdown();
    row.killSynced = synced0;
    row.killKept = kept;
    row.killKeptShare = synced0 == 0 ? Double.NaN : (double) kept / synced0;
    row.killWrongBlocks = wrong;
    log.accept(String.format("  %s: after SIGKILL: first hit %.0f ms, restored in %.0f ms, "
        + "kept %,d of %,d synced blocks, %d wrong", subject, row.killFirstHitMillis,
        row.killRestoreMillis, kept, synced0, wrong));
  }

  private static Process startChild(String subject, long blocks, Path home, long start,
      int rate, int syncMs, String childHeap) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + childHeap);
    cmd.add("-XX:MaxDirectMemorySize=2g");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-") || arg.startsWith("-Dorg.apache.hbase")) {
        cmd.add(arg);
      }
    }
    cmd.addAll(Arrays.asList(Main.jvmFlags().split("\\s+")));
    cmd.add("-Dorg.apache.hbase.thirdparty.io.netty.leakDetection.level=disabled");
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    cmd.add(ScaleChild.class.getName());
    cmd.addAll(Arrays.asList(subject, home.toString(), Long.toString(blocks),
        Long.toString(start), Integer.toString(rate), Integer.toString(syncMs)));
    return new ProcessBuilder(cmd).redirectError(home.resolve("child.err").toFile()).start();
  }

  /** {@code {lo, hi, words...}} as the child wrote them. */
  private static long[] readBitmap(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file);
        DataInputStream data = new DataInputStream(new java.io.BufferedInputStream(in))) {
      long lo = data.readLong();
      long hi = data.readLong();
      long[] out = new long[2 + (int) ((hi - lo + 63) / 64)];
      out[0] = lo;
      out[1] = hi;
      for (int k = 2; k < out.length; k++) {
        out[k] = data.readLong();
      }
      return out;
    }
  }

  private static boolean bit(long[] bitmap, long i) {
    return (bitmap[2 + (int) (i >>> 6)] & (1L << (i & 63))) != 0;
  }

  /** 1,000 blocks of the bitmap, at random (seeded). */
  private static List<Long> sample(long[] bitmap, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    long span = bitmap[1] - bitmap[0];
    List<Long> out = new ArrayList<>();
    for (int tries = 0; tries < 100_000 && out.size() < 1000 && span > 0; tries++) {
      long i = rnd.nextLong(span);
      if (bit(bitmap, i)) {
        out.add(bitmap[0] + i);
      }
    }
    return out;
  }
}
