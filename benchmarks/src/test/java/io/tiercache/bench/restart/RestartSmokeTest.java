/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.restart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keeps the restart command runnable; its figures are for docs/benchmarks.md, not asserted. */
class RestartSmokeTest {
  @TempDir
  Path scratch;

  @Test
  void run_pmemDax_restoresEveryBlockAndHitsAtOnce() throws Exception {
    Restart.Row r = Restart.run("tiercache-pmem-dax", 2_000, 1024, scratch);
    assertEquals(2_000, r.filled);
    assertEquals(2_000, r.restored);
    assertTrue(r.firstHitSeconds < 10, "first hit after " + r.firstHitSeconds + " s");
  }
}
