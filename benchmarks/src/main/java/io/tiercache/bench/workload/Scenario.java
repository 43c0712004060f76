/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import io.tiercache.bench.data.BlockSizes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One workload of the showdown: an access {@link Pattern}, the {@link BlockSizes} of the data,
 * and the database:cache ratio. Named {@code pattern-sizes-ratio}, e.g. {@code zipf-64k-3x}.
 */
public final class Scenario {
  /** The ratios of the published showdown. */
  public static final int[] RATIOS = {1, 3, 9};

  private final Pattern pattern;
  private final BlockSizes sizes;
  private final int ratio;

  public Scenario(Pattern pattern, BlockSizes sizes, int ratio) {
    if (ratio < 1) {
      throw new IllegalArgumentException("ratio must be >= 1: " + ratio);
    }
    this.pattern = Objects.requireNonNull(pattern);
    this.sizes = Objects.requireNonNull(sizes);
    this.ratio = ratio;
  }

  /** Parses a name such as {@code hbase-mixed-9x}. */
  public static Scenario parse(String name) {
    String[] parts = name.split("-");
    if (parts.length != 3 || !parts[2].endsWith("x")) {
      throw new IllegalArgumentException("scenario '" + name + "' is not pattern-sizes-Nx, "
          + "e.g. zipf-64k-3x");
    }
    return new Scenario(Pattern.of(parts[0]), BlockSizes.of(parts[1]),
        Integer.parseInt(parts[2].substring(0, parts[2].length() - 1)));
  }

  /** Every combination of the given patterns and sizes at the published ratios. */
  public static List<Scenario> matrix(List<Pattern> patterns, List<BlockSizes> sizes) {
    List<Scenario> all = new ArrayList<>();
    for (BlockSizes s : sizes) {
      for (Pattern p : patterns) {
        for (int r : RATIOS) {
          all.add(new Scenario(p, s, r));
        }
      }
    }
    return all;
  }

  public Pattern pattern() {
    return pattern;
  }

  public BlockSizes sizes() {
    return sizes;
  }

  public int ratio() {
    return ratio;
  }

  /** The scenario name without the ratio, e.g. {@code zipf-64k}: one chart each. */
  public String family() {
    return pattern.label() + "-" + sizes.label();
  }

  public String name() {
    return family() + "-" + ratio + "x";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Scenario && ((Scenario) o).name().equals(name());
  }

  @Override
  public int hashCode() {
    return name().hashCode();
  }

  @Override
  public String toString() {
    return name();
  }
}
