/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

/**
 * Zipfian ranks over {@code [0, n)} by the method of Gray et al. ("Quickly generating
 * billion-record synthetic databases"), the generator YCSB and HBase's PerformanceEvaluation use.
 * Rank 0 is the most popular.
 *
 * <p>Concurrency: immutable; the caller supplies the uniform draw, so one instance serves every
 * thread.
 */
public final class Zipfian {
  /** YCSB's default skew. */
  public static final double THETA = 0.99;

  private final int n;
  private final double theta;
  private final double alpha;
  private final double zetan;
  private final double eta;
  private final double half;

  public Zipfian(int n, double theta) {
    if (n < 1 || !(theta > 0 && theta < 1)) {
      throw new IllegalArgumentException("n=" + n + " theta=" + theta);
    }
    this.n = n;
    this.theta = theta;
    this.zetan = zeta(n, theta);
    double zeta2 = zeta(Math.min(2, n), theta);
    this.alpha = 1.0 / (1.0 - theta);
    this.eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetan);
    this.half = 1.0 + Math.pow(0.5, theta);
  }

  /** Maps a uniform draw {@code u} in {@code [0, 1)} to a rank. */
  public int rank(double u) {
    double uz = u * zetan;
    if (uz < 1.0) {
      return 0;
    }
    if (uz < half) {
      return Math.min(1, n - 1);
    }
    int r = (int) (n * Math.pow(eta * u - eta + 1, alpha));
    return Math.min(Math.max(r, 0), n - 1);
  }

  public int size() {
    return n;
  }

  public double theta() {
    return theta;
  }

  private static double zeta(int n, double theta) {
    double sum = 0;
    for (int i = 1; i <= n; i++) {
      sum += 1 / Math.pow(i, theta);
    }
    return sum;
  }
}
