/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LogLimitTest {
  @Test
  void admit_logsTheFirst_thenOncePerInterval_withTheCountOfQuietEvents() {
    LogLimit limit = new LogLimit(1000);
    long t = 5_000_000L;
    assertEquals(0, limit.admit(t), "the first is logged");
    for (int i = 1; i <= 9; i++) {
      assertEquals(-1, limit.admit(t + i * 100), "event " + i + " within the interval");
    }
    assertEquals(9, limit.admit(t + 1000), "the next line says how many were not logged");
    assertEquals(-1, limit.admit(t + 1999));
    assertEquals(1, limit.admit(t + 2000));
  }

  @Test
  void admit_atTheStartOfTheNanoClock_stillLogsTheFirst() {
    LogLimit limit = new LogLimit(LogLimit.MINUTE);
    assertEquals(0, limit.admit(Long.MIN_VALUE + 1));
    assertEquals(-1, limit.admit(Long.MIN_VALUE + 2));
  }
}
