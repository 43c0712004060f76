/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import io.tiercache.bench.data.BlockLayout;
import java.util.SplittableRandom;

/**
 * The block reads of one worker thread: each call to {@link #next(int[])} yields the blocks of
 * one operation, from a seeded generator, without allocating.
 *
 * <p>Concurrency: confined to one thread.
 */
public final class AccessStream {
  /** The most blocks one operation reads (index, bloom, data). */
  public static final int MAX_READS = 3;

  private final Workload workload;
  private final BlockLayout layout;
  private final SplittableRandom random;
  private int scanPosition;
  /** Where in the scan's pass the last operation read, or -1 if it was not a scan read. */
  private int lastScan = -1;
  private int op;

  AccessStream(Workload workload, SplittableRandom random, int thread) {
    this.workload = workload;
    this.layout = workload.layout();
    this.random = random;
    // Threads scan different stretches of the files, as concurrent scans of different regions do.
    this.scanPosition = (int) ((long) workload.coldBlocks() * (thread % 8) / 8);
  }

  /**
   * Writes the block ids of the next operation into {@code ids} (length at least
   * {@link #MAX_READS}) in the order they are read, and returns how many there are.
   */
  public int next(int[] ids) {
    switch (workload.scenario().pattern()) {
      case UNIFORM:
        ids[0] = layout.dataBlock(random.nextInt(workload.dataBlocks()));
        return 1;
      case ZIPF:
        ids[0] = layout.dataBlock(workload.zipfianOrdinal(random));
        return 1;
      case SCAN:
        if (++op % Workload.SCAN_EVERY == 0) {
          ids[0] = layout.dataBlock(workload.coldOrdinal(scanPosition));
          lastScan = scanPosition;
          scanPosition = scanPosition + 1 == workload.coldBlocks() ? 0 : scanPosition + 1;
        } else {
          ids[0] = layout.dataBlock(workload.zipfianOrdinal(random));
          lastScan = -1;
        }
        return 1;
      case HBASE:
        int ordinal = workload.zipfianOrdinal(random);
        ids[0] = layout.indexBlockOf(ordinal);
        ids[1] = layout.bloomBlockOf(ordinal);
        ids[2] = layout.dataBlock(ordinal);
        return 3;
      default:
        throw new AssertionError(workload.scenario());
    }
  }

  /**
   * Where in the scan's pass (0 to {@link #scanPass()} - 1) the last operation read, or -1 if it
   * was not a scan read (always -1 for patterns other than {@code scan}).
   */
  public int lastScanPosition() {
    return lastScan;
  }

  /** Blocks in one pass of the scan (the cold half of the data blocks). */
  public int scanPass() {
    return workload.coldBlocks();
  }
}
