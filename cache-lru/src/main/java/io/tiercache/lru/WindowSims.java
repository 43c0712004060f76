/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import java.util.Arrays;
import java.util.HashMap;
import java.util.function.DoubleToLongFunction;

/**
 * Miniature simulations of the L1's policy at other window shares, which tell the window's
 * hill climber when a share far from the present one would hit clearly more often.
 *
 * <h2>Why</h2>
 * Hill climbing ({@link WindowClimber}) follows the hit rate's slope, and the slope can point
 * the wrong way. Blocks read once and read again some N inserts later (two scanners over the
 * same range, a cold range re-read after a short delay) hit only once the window holds N
 * blocks: the hit rate falls a little as the window grows towards N (frequent blocks lose room)
 * and jumps once it passes N. A climber that starts at 1 % feels the fall and turns back. In a
 * throwaway single-threaded trace of the showdown's {@code scan-64k-9x} mix with its two
 * scanners 100 or 150 blocks apart, the climbing L1 read 61.1 and 60.5 % (at 60, 80 and 120
 * apart its steps happened to cross: 65.0 to 65.6), Caffeine's cache (the same climber, and a
 * sketch that ages twice as fast, which admits some scanned blocks) 63.7 and 63.5, the L1 with
 * its window held at 10 or 20 % 68.5 and 68.2, and with these models 66.7 and 66.6
 * (docs/benchmarks.md, "Miniature simulations of the L1's window").
 *
 * <h2>How</h2>
 * After the miniature simulations of Waldspurger et al. (USENIX ATC 2017): {@link #SHARES} model
 * caches, each a W-TinyLFU with its window fixed at one share, see the requests for the keys
 * whose spread hash falls in a 1/{@code rate} sample and hold 1/{@code rate} of the L1's bytes;
 * a sample of keys by hash keeps each key's reuse distances, scaled, so each model's hit rate
 * estimates what the whole L1 would hit at that share. They read frequencies from the L1's own
 * sketch (a key's frequency does not depend on the cache). At the end of each climber sample,
 * {@link #jump} compares the model nearest the present share with the best one over the last
 * two samples (the first, while the models fill, is no evidence): if the best hit
 * {@link #MARGIN} or more of the sampled requests more often, the window jumps to its share, and
 * the climber goes on from there. Smaller differences, as the models' own noise is, leave the
 * climber alone, so where the slope is right nothing changes; two samples of evidence keep the
 * window from chasing a pattern that lasted one (the showdown's two scanners drift apart and
 * together, and a jump on one sample's word lands after the chance has gone).
 *
 * <p>The rate is the largest power of two, at least {@value #MIN_RATE}, that leaves each model
 * {@value #MODEL_BLOCKS} blocks or more, so a request costs the models about one update (up to
 * eight models, one key in eight or fewer); the models run only when each would hold at least
 * {@value #MIN_MODEL_BLOCKS} blocks (an L1 of 2,048 blocks of its block size hint or more),
 * since smaller samples are too noisy to trust. Below that the climber works alone, as before.
 *
 * <h2>Memory layout</h2>
 * One map from key hash to {@link Entry}; an entry carries, per model, its queue and links, so
 * a sampled request costs one map lookup for all models (keys whose hashes collide share an
 * entry, as they share the sketch's counters). An entry leaves the map when no model holds it.
 * The models mostly hold the same keys: 770 to 950 entries of some 220 bytes (entry, arrays,
 * map node) for an L1 of 4,096 blocks in a single-threaded trace, at most eight models' worth
 * (under 8,200) for any size. Like the sketch, this metadata is not part of the L1's weight.
 *
 * <h2>Concurrency</h2>
 * Not thread safe: called by {@link Policy} under the L1's eviction lock.
 */
final class WindowSims {
  /** The window shares modelled. */
  static final double[] SHARES = {0.01, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8};
  /** Hit-rate gain (share of the sampled requests) that makes the window jump. */
  static final double MARGIN = 0.01;
  static final int MIN_RATE = 8;
  static final int MIN_MODEL_BLOCKS = 256;
  static final int MODEL_BLOCKS = 512;
  /** Requests the models must have seen over the two samples they are compared on. */
  static final int MIN_REQUESTS = 1_000;

  private static final byte NONE = -1;
  private static final byte WINDOW = 0;
  private static final byte PROBATION = 1;
  private static final byte PROTECTED = 2;

  private final FrequencySketch sketch;
  private final HashMap<Integer, Entry> entries = new HashMap<>();
  private Model[] models = new Model[0];
  private int rateMask;
  /** Samples ended since the models were sized. */
  private int samples;
  /** The entry being accessed: it stays in the map until every model has seen the request. */
  private Entry current;
  /** Each model's hit rate in the last completed sample. */
  private double[] lastRates = new double[0];

  WindowSims(FrequencySketch sketch) {
    this.sketch = sketch;
  }

  /**
   * Sizes the models for an L1 of {@code blocks} blocks of its size hint and up to
   * {@code maxShare} window; with too few blocks, switches them off. A new sample rate or set of
   * shares starts the models afresh; the same ones (a resize by HBase's HeapMemoryManager within
   * a power of two) keep what they hold, and {@link #setTargets} gives them their new sizes.
   */
  void setCapacity(long blocks, double maxShare) {
    long rate = Math.max(MIN_RATE, Long.highestOneBit(Math.max(1, blocks / MODEL_BLOCKS)));
    int n = 0;
    if (blocks / rate >= MIN_MODEL_BLOCKS) {
      while (n < SHARES.length && SHARES[n] <= maxShare + 1e-9) {
        n++;
      }
    }
    if (n < 2) {
      n = 0; // one share alone has nothing to compare with
    }
    if (n == models.length && rate == rateMask + 1L) {
      return;
    }
    entries.clear();
    samples = 0;
    rateMask = (int) rate - 1;
    models = new Model[n];
    for (int i = 0; i < n; i++) {
      models[i] = new Model(i, SHARES[i]);
    }
  }

  boolean enabled() {
    return models.length > 0;
  }

  /** The sample's divisor: a model holds 1/rate of the L1's bytes. */
  int rate() {
    return rateMask + 1;
  }

  /**
   * Sets each model's byte targets from the L1's: {@code capacity} bytes for window, probation
   * and protected together, and the protected target the L1 would have at each share.
   */
  void setTargets(long capacity, DoubleToLongFunction protectedTarget) {
    long rate = rateMask + 1L;
    for (Model m : models) {
      m.capacity = capacity / rate;
      m.windowTarget = (long) (capacity * m.share) / rate;
      m.protectedTarget = protectedTarget.applyAsLong(m.share) / rate;
    }
  }

  /**
   * A request for the block with key hash {@code hash} and weight {@code weight}, standing for
   * {@code requests} requests (a sampled hit); the sketch has already counted it.
   */
  void access(int hash, long weight, int requests) {
    if (models.length == 0 || !sampled(hash)) {
      return;
    }
    Entry e = entries.get(hash);
    if (e == null) {
      e = new Entry(hash, weight, models.length);
      entries.put(hash, e);
    }
    current = e;
    for (Model m : models) {
      m.access(e, requests);
    }
    current = null;
    if (e.holders == 0) {
      entries.remove(hash);
    }
  }

  boolean sampled(int hash) {
    int h = hash * 0x9E3779B9;
    h ^= h >>> 16;
    return (h & rateMask) == 0;
  }

  /**
   * Ends a sample: the share to jump to, or {@code NaN} to leave the window where the climber
   * puts it. The models' counts start again either way.
   */
  double jump(double share) {
    double to = Double.NaN;
    if (models.length > 0) {
      samples++;
      Model nearest = models[0];
      Model best = null;
      for (Model m : models) {
        if (Math.abs(m.share - share) < Math.abs(nearest.share - share)) {
          nearest = m;
        }
        if (best == null || m.evidenceRate() > best.evidenceRate()) {
          best = m;
        }
      }
      if (samples > 2 && best != nearest && nearest.evidence() >= MIN_REQUESTS
          && best.evidenceRate() - nearest.evidenceRate() >= MARGIN) {
        to = best.share;
      }
      lastRates = hitRates();
      for (Model m : models) {
        // The first sample (the models filling while the L1 first fills) is not evidence.
        m.previousHits = samples > 1 ? m.hits : 0;
        m.previousRequests = samples > 1 ? m.requests : 0;
        m.hits = 0;
        m.requests = 0;
      }
    }
    return to;
  }

  /** Keys some model holds (or the request in hand), for tests. */
  int trackedKeys() {
    return entries.size();
  }

  int models() {
    return models.length;
  }

  double[] lastRates() {
    return lastRates.clone();
  }

  /** Each model's hit rate in the present sample. */
  double[] hitRates() {
    double[] r = new double[models.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = models[i].hitRate();
    }
    return r;
  }

  /** A sampled key, with its place in every model. */
  private static final class Entry {
    final int hash;
    final long weight;
    final byte[] queue;
    final Entry[] prev;
    final Entry[] next;
    int holders;

    Entry(int hash, long weight, int models) {
      this.hash = hash;
      this.weight = weight;
      this.queue = new byte[models];
      Arrays.fill(queue, NONE);
      this.prev = new Entry[models];
      this.next = new Entry[models];
    }
  }

  /** One W-TinyLFU model with its window fixed at {@link #share}. */
  private final class Model {
    final int index;
    final double share;
    final Queue window = new Queue();
    final Queue probation = new Queue();
    final Queue protectedQ = new Queue();
    long capacity;
    long windowTarget;
    long protectedTarget;
    long hits;
    long requests;
    long previousHits;
    long previousRequests;

    Model(int index, double share) {
      this.index = index;
      this.share = share;
    }

    double hitRate() {
      return requests == 0 ? 0 : (double) hits / requests;
    }

    /** Requests of the last two samples, the evidence {@link #jump} weighs. */
    long evidence() {
      return requests + previousRequests;
    }

    double evidenceRate() {
      long n = evidence();
      return n == 0 ? 0 : (double) (hits + previousHits) / n;
    }

    void access(Entry e, int n) {
      requests += n;
      byte q = e.queue[index];
      if (q == NONE) {
        hits += n - 1;
        e.holders++;
        window.add(e, WINDOW);
        evict();
        return;
      }
      hits += n;
      if (q == PROBATION) {
        probation.remove(e);
        protectedQ.add(e, PROTECTED);
        while (protectedQ.weight > protectedTarget && protectedQ.head != null) {
          Entry d = protectedQ.head;
          protectedQ.remove(d);
          probation.add(d, PROBATION);
        }
      } else {
        Queue from = q == WINDOW ? window : protectedQ;
        from.remove(e);
        from.add(e, q);
      }
    }

    private void evict() {
      while (window.weight + probation.weight + protectedQ.weight > capacity) {
        Entry victim = probation.head != null ? probation.head : protectedQ.head;
        if (window.weight > windowTarget && window.head != null) {
          Entry candidate = window.head;
          if (victim == null) {
            drop(window, candidate);
          } else if (Policy.wins(sketch.frequency(candidate.hash), candidate.weight,
              sketch.frequency(victim.hash), victim.weight)) {
            drop(victim.queue[index] == PROBATION ? probation : protectedQ, victim);
            window.remove(candidate);
            probation.add(candidate, PROBATION);
          } else {
            drop(window, candidate);
          }
        } else {
          drop(victim != null ? (victim.queue[index] == PROBATION ? probation : protectedQ)
              : window, victim != null ? victim : window.head);
        }
      }
      while (window.weight > windowTarget && window.head != null) {
        Entry e = window.head;
        window.remove(e);
        probation.add(e, PROBATION);
      }
    }

    private void drop(Queue q, Entry e) {
      q.remove(e);
      e.queue[index] = NONE;
      if (--e.holders == 0 && e != current) {
        entries.remove(e.hash);
      }
    }

    /** An LRU list threaded through the entries' links for this model; head is the oldest. */
    final class Queue {
      Entry head;
      Entry tail;
      long weight;

      void add(Entry e, byte q) {
        e.queue[index] = q;
        e.prev[index] = tail;
        e.next[index] = null;
        if (tail == null) {
          head = e;
        } else {
          tail.next[index] = e;
        }
        tail = e;
        weight += e.weight;
      }

      void remove(Entry e) {
        Entry p = e.prev[index];
        Entry n = e.next[index];
        if (p == null) {
          head = n;
        } else {
          p.next[index] = n;
        }
        if (n == null) {
          tail = p;
        } else {
          n.prev[index] = p;
        }
        e.prev[index] = null;
        e.next[index] = null;
        weight -= e.weight;
      }
    }
  }
}
