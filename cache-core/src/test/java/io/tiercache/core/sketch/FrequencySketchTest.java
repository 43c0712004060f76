/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.sketch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class FrequencySketchTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261124L);

  @Test
  void firstSighting_setsOnlyTheDoorkeeper_andLaterOnesCountUpToSixteen() {
    FrequencySketch s = new FrequencySketch(1024);
    assertEquals(0, s.frequency(42));
    s.increment(42);
    assertEquals(1, s.frequency(42), "the doorkeeper counts one");
    for (int i = 2; i <= 30; i++) {
      s.increment(42);
      assertEquals(Math.min(i, FrequencySketch.MAX_FREQUENCY), s.frequency(42), "after " + i);
    }
  }

  @Test
  void incrementIfUnseen_countsOnlyAKeyWithNoSightingInTheSample() {
    FrequencySketch s = new FrequencySketch(1024);
    assertTrue(s.incrementIfUnseen(7));
    assertFalse(s.incrementIfUnseen(7));
    s.increment(7);
    assertEquals(2, s.frequency(7));
    assertFalse(s.incrementIfUnseen(7));
    assertEquals(2, s.frequency(7));
  }

  @Test
  void afterASample_countersAreHalvedAndTheDoorkeeperCleared() {
    FrequencySketch s = new FrequencySketch(64);
    for (int i = 0; i < 20; i++) {
      s.increment(-1);
    }
    assertEquals(16, s.frequency(-1));
    // Keys seen once only touch the doorkeeper: the hot key's counters stay exactly 15.
    long added = 20;
    for (int k = 0; s.agings() == 0 && added <= 2 * s.sampleSize(); k++, added++) {
      s.increment(k);
    }
    assertEquals(1, s.agings(), "aged once after " + added + " sightings");
    assertEquals(7, s.frequency(-1), "15 halved, doorkeeper cleared");
  }

  @Test
  void hotKeys_estimateAboveColdOnes_despiteCollisions() {
    SplittableRandom rnd = new SplittableRandom(SEED);
    FrequencySketch s = new FrequencySketch(4096);
    int[] hot = new int[200];
    int[] cold = new int[3000];
    for (int i = 0; i < hot.length; i++) {
      hot[i] = rnd.nextInt();
    }
    for (int i = 0; i < cold.length; i++) {
      cold[i] = rnd.nextInt();
      s.increment(cold[i]);
    }
    for (int round = 0; round < 8; round++) {
      for (int h : hot) {
        s.increment(h);
      }
    }
    for (int h : hot) {
      assertTrue(s.frequency(h) >= 8, "seed " + SEED + ": hot key under-estimated");
    }
    int overestimated = 0;
    for (int c : cold) {
      if (s.frequency(c) > 2) {
        overestimated++;
      }
    }
    assertTrue(overestimated < cold.length / 50,
        "seed " + SEED + ": " + overestimated + " cold keys estimated above 2");
  }

  @Test
  void concurrentCounterIncrements_areNeverLost() throws Exception {
    int threads = 4;
    int perThread = 3; // 12 counted sightings per key after the doorkeeper's: 13, below 16
    int keys = 2000;
    FrequencySketch s = new FrequencySketch(1 << 16); // sample 655,360: no aging here
    // First sightings first, on one thread: two threads that both see a key for the first time
    // may both take it for the doorkeeper's (documented); the counters must lose nothing.
    for (int k = 0; k < keys; k++) {
      s.increment(k);
    }
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long seed = SEED + t;
        work.add(pool.submit(() -> {
          SplittableRandom rnd = new SplittableRandom(seed);
          start.await();
          for (int round = 0; round < perThread; round++) {
            int first = rnd.nextInt(keys); // each thread walks the keys from its own start
            for (int i = 0; i < keys; i++) {
              s.increment((first + i) % keys);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : work) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(0, s.agings());
    for (int k = 0; k < keys; k++) {
      assertTrue(s.frequency(k) >= 1 + threads * perThread,
          "seed " + SEED + ": key " + k + " estimated " + s.frequency(k));
    }
  }

  @Test
  void sampleFactor_setsWhenTheSketchAges() {
    assertEquals(10L * 64, new FrequencySketch(64).sampleSize());
    FrequencySketch s = new FrequencySketch(64, 20);
    assertEquals(20L * 64, s.sampleSize());
    for (int k = 0; k < 20 * 64 - 1; k++) {
      s.increment(k);
    }
    assertEquals(0, s.agings(), "not before 20 x width sightings");
    s.increment(-1);
    assertEquals(1, s.agings());
    assertThrows(IllegalArgumentException.class, () -> new FrequencySketch(64, 0));
    assertThrows(IllegalArgumentException.class,
        () -> new FrequencySketch(64, FrequencySketch.MAX_SAMPLE_FACTOR + 1));
  }

  @Test
  void width_isBoundedWhateverTheExpectedKeys() {
    assertEquals(16L * 64 + 64, new FrequencySketch(1).heapBytes());
    assertEquals(16L * FrequencySketch.MAX_WIDTH + 64,
        new FrequencySketch(Long.MAX_VALUE).heapBytes());
  }
}
