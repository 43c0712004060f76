/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A test hook: while {@link #hold held}, an L2 restore that starts waits before it begins (at
 * most {@link #MAX_HOLD_MS}), so that a test on an in-process RegionServer can show the server
 * opening regions and serving reads while the restore of its L2 has not ended, however small
 * the test's L2, without timing assumptions ({@code TieredHBaseFeaturesIT}, issue 12). Nothing
 * in TierCache holds it; not held, it costs each restore one volatile read.
 *
 * <p>Thread safe: the latch is replaced and read through a volatile field.
 */
public final class RestoreGate {
  private static final Logger LOG = LoggerFactory.getLogger(RestoreGate.class);
  /** The longest a restore waits at a held gate: a test that forgets to release cannot hang. */
  static final long MAX_HOLD_MS = TimeUnit.MINUTES.toMillis(5);

  private static volatile CountDownLatch held;
  private static final AtomicInteger waiting = new AtomicInteger();

  private RestoreGate() {}

  /** Holds every restore that starts from now until {@link #release}. */
  public static void hold() {
    held = new CountDownLatch(1);
  }

  /** Lets the waiting restores and later ones run. */
  public static void release() {
    CountDownLatch l = held;
    held = null;
    if (l != null) {
      l.countDown();
    }
  }

  /** Number of restores waiting at the gate now (each has started, and has not ended). */
  public static int waiting() {
    return waiting.get();
  }

  /** Called by each restore as it starts: waits while the gate is held. */
  static void pass(String tier) {
    CountDownLatch l = held;
    if (l == null) {
      return;
    }
    LOG.info("{}: restore held by RestoreGate (a test hook)", tier);
    waiting.incrementAndGet();
    try {
      if (!l.await(MAX_HOLD_MS, TimeUnit.MILLISECONDS)) {
        LOG.warn("{}: RestoreGate held for {} ms; the restore goes on", tier, MAX_HOLD_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      waiting.decrementAndGet();
    }
  }
}
