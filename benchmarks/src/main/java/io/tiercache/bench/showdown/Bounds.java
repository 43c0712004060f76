/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

/**
 * A cell's reference hit ratios, computed once per cell: Bélády's OPT on the cell's trace, and
 * the popularity bound A0 of its pattern (see {@code Belady}, {@code PopularityBound}).
 * Immutable.
 */
final class Bounds {
  /** No references (the unreported JIT warm-up). */
  static final Bounds NONE = new Bounds(Double.NaN, Double.NaN);

  final double opt;
  /** NaN for patterns the popularity bound does not cover. */
  final double a0;

  Bounds(double opt, double a0) {
    this.opt = opt;
    this.a0 = a0;
  }
}
