/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.footprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bench.subject.Subjects;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keeps the footprint command runnable; its figures are for docs/benchmarks.md, not asserted. */
class FootprintSmokeTest {
  @TempDir
  Path scratch;

  @Test
  void measure_smallRun_cachesEveryBlockAndReportsTheShift() throws Exception {
    Footprint.Result r = Footprint.measure(Subjects.standard().get("tiercache-l2-offheap"), 2_000,
        scratch);
    assertEquals(2_000, r.cached);
    assertTrue(r.shiftUtilisation >= 0.9, "utilisation after the shift " + r.shiftUtilisation);
  }
}
