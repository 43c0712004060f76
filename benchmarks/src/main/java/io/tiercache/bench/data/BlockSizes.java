/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.data;

import java.util.Locale;
import java.util.SplittableRandom;

/** How large the data blocks of a dataset are: HBase's default 64 KB, or a 4–512 KB mix. */
public enum BlockSizes {
  /** Every data block holds 64 KB, HBase's default {@code BLOCKSIZE}. */
  FIXED_64K("64k"),
  /** Data block sizes drawn log-uniformly from 4 KB to 512 KB (mean about 105 KB). */
  MIXED("mixed");

  static final int MIN_MIXED = 4 * 1024;
  static final int MAX_MIXED = 512 * 1024;
  static final int FIXED = 64 * 1024;

  private final String label;

  BlockSizes(String label) {
    this.label = label;
  }

  /** The label used in scenario names, e.g. {@code 64k}. */
  public String label() {
    return label;
  }

  /** Draws the payload size (bytes after the header) of the next data block. */
  int nextPayload(SplittableRandom random) {
    if (this == FIXED_64K) {
      return FIXED;
    }
    double lo = Math.log(MIN_MIXED);
    double hi = Math.log(MAX_MIXED);
    int size = (int) Math.exp(lo + random.nextDouble() * (hi - lo));
    return Math.max(MIN_MIXED, Math.min(MAX_MIXED, size & ~63));
  }

  /** The typical payload, used as the block-size hint given to caches. */
  public int typicalPayload() {
    return this == FIXED_64K ? FIXED : 105 * 1024;
  }

  /** Parses a label such as {@code 64k} or {@code mixed}. */
  public static BlockSizes of(String label) {
    for (BlockSizes s : values()) {
      if (s.label.equals(label.toLowerCase(Locale.ROOT))) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown block sizes '" + label + "' (64k, mixed)");
  }
}
