/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.log;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rate limit for a log line that can repeat (a checksum failure per read of a damaged file, an
 * I/O error per write to a full disk): the first event is logged, later ones at most once per
 * interval, each line saying how many were not logged since the one before. Lock-free; any
 * thread. Times are {@code System.nanoTime()} values passed in, so tests need no clock.
 *
 * <pre>{@code
 * long quiet = limit.admit(System.nanoTime());
 * if (quiet >= 0) {
 *   LOG.warn("{}: block {} failed its checksum ({} more not logged)", tier, key, quiet);
 * }
 * }</pre>
 */
public final class LogLimit {
  /** One line a minute: the default for repeated WARNs. */
  public static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

  private static final long NEVER = Long.MIN_VALUE;

  private final long interval;
  private final AtomicLong last = new AtomicLong(NEVER);
  private final AtomicLong quiet = new AtomicLong();

  public LogLimit(long intervalNanos) {
    this.interval = intervalNanos;
  }

  /**
   * Counts an event at time {@code now}; returns -1 if it must not be logged, else how many
   * events were not logged since the last line (0 for the first).
   */
  public long admit(long now) {
    long l = last.get();
    if ((l != NEVER && now - l < interval) || !last.compareAndSet(l, now)) {
      quiet.incrementAndGet();
      return -1;
    }
    return quiet.getAndSet(0);
  }
}
