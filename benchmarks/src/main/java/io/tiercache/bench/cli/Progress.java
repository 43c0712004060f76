/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.cli;

import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Progress of a long run counted in cells (one subject in one scenario, one PE run, one footprint
 * subject): each finished cell yields one line prefix {@code [done/total, elapsed 3m12s, ETA
 * 14m05s]}. The ETA assumes the remaining cells take as long on average as the finished ones,
 * weighted by their declared cost (e.g. measured operations), so cells of different sizes do not
 * skew it.
 *
 * <p>Concurrency: confined to the thread that runs the cells.
 */
public final class Progress {
  private final LongSupplier nanoClock;
  private final long start;
  private final double totalCost;
  private final int total;
  private int done;
  private double doneCost;
  /** Time spent outside the cells (building a dataset, JIT warm-up): not a cell's cost. */
  private long skippedNanos;

  /** A run of {@code total} cells of equal cost, timed by {@link System#nanoTime()}. */
  public Progress(int total) {
    this(total, total, System::nanoTime);
  }

  /**
   * A run of {@code total} cells whose costs add up to {@code totalCost}, timed by
   * {@code nanoClock}.
   */
  public Progress(int total, double totalCost, LongSupplier nanoClock) {
    if (total < 0 || totalCost < 0) {
      throw new IllegalArgumentException("total " + total + ", cost " + totalCost);
    }
    this.total = total;
    this.totalCost = totalCost;
    this.nanoClock = nanoClock;
    this.start = nanoClock.getAsLong();
  }

  /**
   * Records {@code nanos} spent on work that is not a cell (a dataset written once, a JIT
   * warm-up): counted in the elapsed time, left out of the rate the ETA extrapolates.
   */
  public void skip(long nanos) {
    skippedNanos += nanos;
  }

  /** Records one finished cell of cost 1 and returns the line prefix. */
  public String step() {
    return step(1);
  }

  /** Records one finished cell of {@code cost} and returns the line prefix. */
  public String step(double cost) {
    done++;
    doneCost += cost;
    long elapsed = nanoClock.getAsLong() - start;
    String eta;
    if (done >= total) {
      eta = "done";
    } else if (doneCost <= 0) {
      eta = "ETA ?";
    } else {
      long cells = Math.max(0, elapsed - skippedNanos);
      eta = "ETA " + duration((long) (cells * Math.max(0, totalCost - doneCost) / doneCost));
    }
    return String.format(Locale.ROOT, "[%d/%d, elapsed %s, %s]", done, total, duration(elapsed),
        eta);
  }

  /** {@code 45s}, {@code 3m05s}, {@code 1h02m}. */
  public static String duration(long nanos) {
    long s = Math.round(nanos / 1e9);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
  }
}
