/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Who applies the hits waiting in the L1's read buffer: the hit that finds its stripe full (that
 * stripe), {@code wouldAdmit} and one put in {@link LruTier#SWEEP_PUTS} (all stripes), not other
 * inserts (see {@link LruTier}'s "Drains"). Single-threaded but for one test, so every hit lands
 * in one stripe.
 */
class LruTierReadBufferTest {
  private static final int BLOCK = 4 * 1024;
  private static final int BLOCKS = 256;

  private static LruTier tier() {
    return LruTier.builder().maxSize((long) BLOCKS * (BLOCK + 1024)).blockSizeHint(BLOCK)
        .build();
  }

  private static boolean read(LruTier t, long id) {
    return LruTierAdaptiveWindowTest.read(t, id);
  }

  /**
   * Fills the tier past its maximum (hits are recorded from half full on): busy, all inserts;
   * 512 puts, a whole number of {@link LruTier#SWEEP_PUTS}.
   */
  private static LruTier busyTier() {
    LruTier t = tier();
    for (long id = 0; id < 2 * BLOCKS; id++) {
      read(t, id);
    }
    assertFalse(t.quiet());
    return t;
  }

  @Test
  void theHitThatFindsItsStripeFull_appliesIt() {
    LruTier t = busyTier();
    long resident = 2 * BLOCKS - 1;
    long applied = t.appliedHits(true);
    for (int i = 0; i < ReadBuffer.STRIPE_SIZE; i++) {
      assertTrue(read(t, resident));
    }
    assertEquals(applied, t.appliedHits(false), "a stripe's depth of hits waits in it");
    assertTrue(read(t, resident)); // finds the stripe full: drains it, its own hit is dropped
    assertEquals(applied + ReadBuffer.STRIPE_SIZE, t.appliedHits(false));
    t.checkInvariants();
  }

  @Test
  void anInsert_leavesTheWaitingHits_wouldAdmitAppliesThem() {
    LruTier t = busyTier(); // its 512 puts end a sweep period: the next put is not a sweep's
    long resident = 2 * BLOCKS - 1;
    long applied = t.appliedHits(true);
    assertTrue(read(t, resident));
    assertTrue(read(t, resident));
    assertFalse(read(t, 10 * BLOCKS)); // a miss and an insert
    assertEquals(applied, t.appliedHits(false), "the insert left the hits waiting");
    t.wouldAdmit(LruTierAdaptiveWindowTest.key(11 * BLOCKS), BLOCK);
    assertEquals(applied + 2, t.appliedHits(false), "wouldAdmit applied them");
    t.checkInvariants();
  }

  @Test
  void aFullStripesHit_drainsItsOwnStripe_notAnotherThreads() throws InterruptedException {
    LruTier t = busyTier();
    long resident = 2 * BLOCKS - 1;
    long applied = t.appliedHits(true);
    int mine = t.readStripeOf(Thread.currentThread());
    Thread other = null;
    for (int i = 0; i < 256 && other == null; i++) {
      Thread candidate = new Thread(() -> {
        for (int k = 0; k < 5; k++) {
          read(t, resident);
        }
      });
      other = t.readStripeOf(candidate) != mine ? candidate : null;
    }
    assertTrue(other != null, "no thread on another stripe in 256");
    other.start();
    other.join(); // five hits waiting in the other thread's stripe
    for (int i = 0; i <= ReadBuffer.STRIPE_SIZE; i++) {
      assertTrue(read(t, resident));
    }
    assertEquals(applied + ReadBuffer.STRIPE_SIZE, t.appliedHits(false),
        "this thread's stripe applied, the other's still waiting");
    assertEquals(applied + ReadBuffer.STRIPE_SIZE + 5, t.appliedHits(true));
  }

  @Test
  void onePutInSweepPuts_drainsEveryStripe() {
    LruTier t = busyTier();
    long resident = 2 * BLOCKS - 1;
    long applied = t.appliedHits(true);
    assertTrue(read(t, resident));
    assertTrue(read(t, resident));
    long next = 100 * BLOCKS;
    for (int i = 0; i < LruTier.SWEEP_PUTS; i++) {
      assertFalse(read(t, next++));
    }
    assertEquals(applied + 2, t.appliedHits(false), "one of the puts drained the waiting hits");
    t.checkInvariants();
  }
}
