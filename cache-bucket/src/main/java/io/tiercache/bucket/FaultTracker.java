/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.core.log.LogLimit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when I/O errors disable the L2, as HBase's
 * {@code hbase.bucketcache.ioengine.errors.tolerated.duration} does: each error fails only the
 * read or write it hit; once errors have gone on, without a success in between, for longer than
 * the tolerated duration, the tier is disabled for good and says so in one log line.
 *
 * <p>Failures that are not I/O errors ({@link #unexpected}) never leave a {@code BlockCache}
 * method either: an {@link Error} (a store into a mapping the file system cannot back surfaces
 * as {@code InternalError}; memory exhausted) disables the tier at once, with one ERROR line; a
 * {@link RuntimeException} (a bug) drops the one block, logged with its stack trace at most once
 * a minute.
 *
 * <p>Thread safe: the first-error time is an atomic; a success clears it.
 */
final class FaultTracker {
  private static final Logger LOG = LoggerFactory.getLogger(FaultTracker.class);
  private static final long NONE = Long.MIN_VALUE;
  private static final long UNEXPECTED_LOG_NANOS = 60_000_000_000L;

  private final String tier;
  private volatile long toleratedNanos; // changed online by onConfigurationChange
  private final LongSupplier clock;
  private final AtomicLong firstError = new AtomicLong(NONE);
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong unexpected = new AtomicLong();
  private final AtomicLong lastUnexpectedLog = new AtomicLong(NONE);
  private final LogLimit errorLog = new LogLimit(LogLimit.MINUTE);
  private volatile boolean disabled;

  FaultTracker(String tier, long toleratedMs, LongSupplier nanoClock) {
    this.tier = tier;
    this.toleratedNanos = toleratedMs * 1_000_000L;
    this.clock = nanoClock;
  }

  /** Sets how long errors may go on before they disable the tier. */
  void setToleratedMs(long ms) {
    toleratedNanos = ms * 1_000_000L;
  }

  boolean disabled() {
    return disabled;
  }

  long errors() {
    return errors.get();
  }

  void success() {
    if (firstError.get() != NONE) {
      firstError.set(NONE);
    }
  }

  /** Failures other than I/O errors, caught at the tier's boundary. */
  long unexpected() {
    return unexpected.get();
  }

  /**
   * Records a failure that is not an I/O error, caught so that it does not leave a
   * {@code BlockCache} method; returns true if it disabled the tier (every {@link Error} does).
   */
  boolean unexpected(String what, Throwable t) {
    long n = unexpected.incrementAndGet();
    long now = clock.getAsLong();
    if (t instanceof Error) {
      synchronized (this) {
        if (!disabled) {
          disabled = true;
          LOG.error("{}: disabled after {} in {}; the RegionServer keeps serving without this tier",
              tier, t.toString(), what, t);
          return true;
        }
      }
      return false;
    }
    long last = lastUnexpectedLog.get();
    if (n == 1 || now - last >= UNEXPECTED_LOG_NANOS) {
      if (lastUnexpectedLog.compareAndSet(last, now)) {
        LOG.error("{}: {} failed ({} unexpected failures so far); the block is dropped", tier,
            what, n, t);
      }
    }
    return false;
  }

  /** Records an error; returns true if this error disabled the tier. */
  boolean error(String what, Exception e) {
    errors.incrementAndGet();
    long now = clock.getAsLong();
    firstError.compareAndSet(NONE, now);
    long since = firstError.get();
    long quiet = errorLog.admit(now);
    if (quiet >= 0) {
      LOG.warn("{}: I/O error on {} ({} so far, {} since the last such line; at most one line "
          + "a minute): {}", tier, what, errors.get(), quiet, e.toString());
    }
    if (!disabled && since != NONE && now - since >= toleratedNanos) {
      synchronized (this) {
        if (!disabled) {
          disabled = true;
          LOG.error("{}: disabled after I/O errors for {} ms (tolerated: {} ms); the RegionServer"
              + " keeps serving without this tier. Last error: {}", tier,
              (now - since) / 1_000_000, toleratedNanos / 1_000_000, e.toString());
          return true;
        }
      }
    }
    return false;
  }
}
