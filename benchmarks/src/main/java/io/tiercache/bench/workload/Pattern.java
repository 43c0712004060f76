/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import java.util.Locale;

/** Which blocks an operation reads. */
public enum Pattern {
  /** One data block, every block equally likely. */
  UNIFORM("uniform"),
  /** One data block, zipfian popularity (theta 0.99) scattered over the files. */
  ZIPF("zipf"),
  /**
   * Zipfian reads, and every {@value Workload#SCAN_EVERY}th operation the next block of a
   * sequential pass, in file order, over the cold half of the data blocks (the half the zipfian
   * reads rarely touch). The scan caches its blocks, as a {@code Scan} does by default, so it
   * pollutes the cache with blocks read once per pass; the pass wraps around at the end.
   */
  SCAN("scan"),
  /**
   * A get as HBase does it: the file's leaf index block, its bloom chunk, then the zipfian data
   * block; the operation is the three reads.
   */
  HBASE("hbase");

  private final String label;

  Pattern(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  public static Pattern of(String label) {
    for (Pattern p : values()) {
      if (p.label.equals(label.toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown pattern '" + label + "' (uniform, zipf, scan, hbase)");
  }
}
