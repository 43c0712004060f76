/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The read buffer's stripes: a stripe's depth and order, drains of one stripe or all. */
class ReadBufferTest {
  @Test
  void aStripeHoldsItsDepth_inOrder_andIsFreeAgainAfterADrain() {
    ReadBuffer<Integer> buffer = new ReadBuffer<>();
    for (int i = 0; i < ReadBuffer.STRIPE_SIZE; i++) {
      assertEquals(ReadBuffer.SUCCESS, buffer.offer(i));
    }
    assertEquals(ReadBuffer.FULL, buffer.offer(-1));
    List<Integer> drained = new ArrayList<>();
    buffer.drainTo(drained::add);
    assertEquals(ReadBuffer.STRIPE_SIZE, drained.size());
    for (int i = 0; i < ReadBuffer.STRIPE_SIZE; i++) {
      assertEquals(i, drained.get(i));
    }
    drained.clear();
    buffer.drainTo(drained::add);
    assertEquals(List.of(), drained, "a drained stripe is empty");
    // the ring wraps: a second round of offers fills it again
    for (int i = 0; i < ReadBuffer.STRIPE_SIZE; i++) {
      assertEquals(ReadBuffer.SUCCESS, buffer.offer(100 + i));
    }
    buffer.drainTo(drained::add);
    assertEquals(ReadBuffer.STRIPE_SIZE, drained.size());
    assertEquals(100, drained.get(0));
    assertEquals(100 + ReadBuffer.STRIPE_SIZE - 1, drained.get(drained.size() - 1));
  }

  @Test
  void drainOwn_takesOnlyTheCallingThreadsStripe() throws InterruptedException {
    ReadBuffer<Integer> buffer = new ReadBuffer<>();
    int mine = buffer.stripeOf(Thread.currentThread().getId());
    Thread other = null;
    for (int i = 0; i < 256 && other == null; i++) {
      Thread t = new Thread(() -> {
        for (int k = 0; k < 5; k++) {
          buffer.offer(1000 + k);
        }
      });
      other = buffer.stripeOf(t.getId()) != mine ? t : null;
    }
    assertNotNull(other, "no thread on another stripe in 256");
    for (int k = 0; k < 3; k++) {
      assertEquals(ReadBuffer.SUCCESS, buffer.offer(k));
    }
    other.start();
    other.join();
    List<Integer> drained = new ArrayList<>();
    buffer.drainOwnTo(drained::add);
    assertEquals(List.of(0, 1, 2), drained);
    drained.clear();
    buffer.drainTo(drained::add);
    assertEquals(List.of(1000, 1001, 1002, 1003, 1004), drained);
  }
}
