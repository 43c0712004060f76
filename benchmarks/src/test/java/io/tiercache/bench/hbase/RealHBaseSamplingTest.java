/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The randomRead pass reads about as many rows as {@code --gets} asks for. */
class RealHBaseSamplingTest {
  /** What PE does with {@code --sampleRate}: one row read per {@code (long) (1f / rate)}. */
  private static long peEvery(String rate) {
    return (long) (1f / Float.parseFloat(rate));
  }

  @Test
  void sampleRate_makesPeReadEveryNthRow_forEveryN() {
    for (long every = 1; every <= 10_000; every++) {
      assertEquals(every, peEvery(RealHBase.sampleRate(every)), "every " + every);
    }
  }

  @Test
  void readEvery_givesTheNearestWholeStep() {
    assertEquals(2, RealHBase.readEvery(117_597, 60_000), "60,000 of 117,597 rows");
    assertEquals(1, RealHBase.readEvery(117_597, 120_000));
    assertEquals(1, RealHBase.readEvery(117_597, 500_000), "more gets than rows: every row");
    assertEquals(6, RealHBase.readEvery(117_597, 20_000));
    assertEquals(117_597, RealHBase.readEvery(117_597, 0), "no gets asked: one row");
  }
}
