/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link Checkpoints.FailureLog}: how much of a run of checkpoint failures is logged. */
class CheckpointsFailureLogTest {
  @Test
  void failureLog_lastingFailures_logFirstInFullThenOneLinePerMinute() {
    long minute = TimeUnit.MINUTES.toNanos(1);
    Checkpoints.FailureLog log = new Checkpoints.FailureLog(minute);
    long t0 = 1_000;
    assertEquals(Checkpoints.FailureLog.Verdict.FIRST, log.failed(t0));
    for (int s = 1; s < 60; s++) { // a failure a second for the rest of the minute
      assertEquals(Checkpoints.FailureLog.Verdict.QUIET, log.failed(t0 + s * 1_000_000_000L));
    }
    assertEquals(Checkpoints.FailureLog.Verdict.SUMMARY, log.failed(t0 + minute));
    assertEquals(Checkpoints.FailureLog.Verdict.QUIET, log.failed(t0 + minute + 1));
    assertEquals(Checkpoints.FailureLog.Verdict.SUMMARY, log.failed(t0 + 2 * minute));
    assertEquals(63, log.inARow());
    assertEquals(63, log.succeeded());
    assertEquals(0, log.succeeded());
    // a new run starts in full again
    assertEquals(Checkpoints.FailureLog.Verdict.FIRST, log.failed(t0 + 2 * minute + 5));
  }
}
