/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import io.tiercache.bench.data.BlockLayout;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A {@link Scenario} bound to a dataset and a cache capacity: which files take part (the fewest
 * leading files holding {@code ratio x capacity} bytes) and, for zipfian patterns, which data
 * block has which popularity rank.
 *
 * <p>Popularity is scattered over the files by a seeded permutation, so hot blocks are not all in
 * the first file. Every subject sees the same permutation and, through
 * {@link #stream(long, int)}, the same per-thread sequence of blocks.
 *
 * <p>Concurrency: immutable; streams are per thread.
 */
public final class Workload {
  /** In the scan-polluted mix, one operation in this many is a scan read. */
  public static final int SCAN_EVERY = 4;

  private final Scenario scenario;
  private final BlockLayout layout;
  private final int files;
  private final int dataBlocks;
  private final int[] byRank;
  private final Zipfian zipfian;
  /** The cold half of the data blocks (zipfian ranks n/2 and up), in file order. */
  private final int[] cold;

  private Workload(Scenario scenario, BlockLayout layout, int files, long seed) {
    this.scenario = scenario;
    this.layout = layout;
    this.files = files;
    this.dataBlocks = layout.dataBlocksOfFiles(files);
    this.byRank = new int[dataBlocks];
    for (int i = 0; i < dataBlocks; i++) {
      byRank[i] = i;
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = dataBlocks - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = byRank[i];
      byRank[i] = byRank[j];
      byRank[j] = t;
    }
    this.zipfian = new Zipfian(dataBlocks, Zipfian.THETA);
    boolean[] isCold = new boolean[dataBlocks];
    for (int rank = dataBlocks / 2; rank < dataBlocks; rank++) {
      isCold[byRank[rank]] = true;
    }
    this.cold = new int[dataBlocks - dataBlocks / 2];
    for (int ordinal = 0, i = 0; ordinal < dataBlocks; ordinal++) {
      if (isCold[ordinal]) {
        cold[i++] = ordinal;
      }
    }
  }

  /** Binds {@code scenario} to the leading files of {@code layout} for a cache of {@code capacity}. */
  public static Workload of(Scenario scenario, BlockLayout layout, long capacity, long seed) {
    if (layout.sizes() != scenario.sizes()) {
      throw new IllegalArgumentException(scenario + " needs a " + scenario.sizes().label()
          + " dataset, not " + layout.sizes().label());
    }
    int files = layout.filesFor(capacity * scenario.ratio());
    if (layout.bytesOfFiles(files) < capacity * scenario.ratio()) {
      throw new IllegalArgumentException("dataset of " + layout.totalBytes() + " bytes is too small"
          + " for " + scenario + " with a cache of " + capacity + " bytes");
    }
    return new Workload(scenario, layout, files, seed ^ scenario.name().hashCode());
  }

  /** The stream of block reads of thread {@code thread}; the same for every subject. */
  public AccessStream stream(long seed, int thread) {
    long s = seed * 0x9E3779B97F4A7C15L + thread * 0xBF58476D1CE4E5B9L + scenario.name().hashCode();
    return new AccessStream(this, new SplittableRandom(s), thread);
  }

  public Scenario scenario() {
    return scenario;
  }

  public BlockLayout layout() {
    return layout;
  }

  /** Files taking part. */
  public int files() {
    return files;
  }

  /** Data blocks taking part; their ordinals are {@code [0, dataBlocks)}. */
  public int dataBlocks() {
    return dataBlocks;
  }

  /** Bytes of the files taking part: the database side of the ratio. */
  public long bytes() {
    return layout.bytesOfFiles(files);
  }

  /** Blocks of every type taking part. */
  public int blocks() {
    return layout.blocksOfFiles(files);
  }

  /** Data blocks the scan passes over. */
  int coldBlocks() {
    return cold.length;
  }

  /** The data ordinal of the {@code i}th block of the scan's pass. */
  int coldOrdinal(int i) {
    return cold[i];
  }

  /**
   * The probability that a read picks each data block (by data ordinal) when the pattern draws
   * every read independently from a fixed distribution ({@code uniform}, {@code zipf}); null for
   * patterns whose popularity moves ({@code scan}) or that read index and bloom blocks as well
   * ({@code hbase}).
   */
  public double[] dataBlockProbabilities() {
    double[] p = new double[dataBlocks];
    switch (scenario.pattern()) {
      case UNIFORM:
        Arrays.fill(p, 1.0 / dataBlocks);
        return p;
      case ZIPF:
        double[] byRankP = PopularityBound.probabilities(zipfian, 1 << 24);
        for (int rank = 0; rank < dataBlocks; rank++) {
          p[byRank[rank]] = byRankP[rank];
        }
        return p;
      default:
        return null;
    }
  }

  int zipfianOrdinal(SplittableRandom random) {
    return byRank[zipfian.rank(random.nextDouble())];
  }
}
