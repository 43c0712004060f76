/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.IntUnaryOperator;

/**
 * Bélády's offline policy: the hit ratio a cache of {@code capacity} bytes would reach on a known
 * sequence of block reads if it always evicted the block whose next use is farthest away, and
 * did not admit a missed block whose own next use is farther than every block it would displace
 * (or that is never used again).
 *
 * <p>For blocks of one size this is the optimum (Bélády 1966; with bypass, as here, it is optimal
 * among policies that may decline to cache). For mixed sizes it is the classic size-unaware
 * policy, a strong reference but not a proven optimum (the optimum with sizes is NP-hard).
 *
 * <p>Cost: one backward pass computes each read's next use ({@code O(n)} with an array indexed by
 * block id), then one forward pass with a max-heap on next use, {@code O(n log n)}. Heap entries
 * go stale when their block is read again or evicted; they are skipped when they surface.
 *
 * <p>Concurrency: stateless; each call works on its own arrays.
 */
public final class Belady {
  /** Next use of a read whose block is never read again. */
  private static final int NEVER = Integer.MAX_VALUE;

  private Belady() {}

  /**
   * Bélády's hit ratio on {@code trace} (block ids in {@code [0, idBound)}), counting only reads
   * from index {@code measuredFrom} on: the reads before it warm the cache, as the showdown's
   * warm-up does.
   *
   * @param sizeOf bytes a block takes in the cache, by id
   * @return hits / reads over {@code trace[measuredFrom..]}, or NaN if that part is empty
   */
  public static double hitRatio(int[] trace, int idBound, IntUnaryOperator sizeOf, long capacity,
      int measuredFrom) {
    int n = trace.length;
    if (measuredFrom < 0 || measuredFrom > n) {
      throw new IllegalArgumentException("measuredFrom " + measuredFrom + " of " + n);
    }
    int[] next = new int[n];
    int[] seen = new int[idBound];
    Arrays.fill(seen, NEVER);
    for (int i = n - 1; i >= 0; i--) {
      next[i] = seen[trace[i]];
      seen[trace[i]] = i;
    }
    // residentNext[id]: the next use of a resident block, or -1 if the block is not resident.
    int[] residentNext = seen;
    Arrays.fill(residentNext, -1);
    PriorityQueue<long[]> farthest = new PriorityQueue<>((a, b) -> Long.compare(b[0], a[0]));
    List<long[]> victims = new ArrayList<>();
    long used = 0;
    long hits = 0;
    for (int i = 0; i < n; i++) {
      int id = trace[i];
      int nextUse = next[i];
      if (residentNext[id] >= 0) {
        if (i >= measuredFrom) {
          hits++;
        }
        residentNext[id] = nextUse;
        farthest.add(new long[] {nextUse, id});
        continue;
      }
      long size = sizeOf.applyAsInt(id);
      if (nextUse == NEVER || size > capacity) {
        continue;
      }
      // Evict blocks used later than this one until it fits; if a block used sooner would have
      // to go, the incoming block is the one to drop (bypass) and the candidates stay.
      victims.clear();
      long freed = 0;
      while (used - freed + size > capacity) {
        long[] top = farthest.peek();
        if (top == null) {
          break;
        }
        int victim = (int) top[1];
        if (residentNext[victim] != top[0]) {
          farthest.poll(); // stale: read again or evicted since
          continue;
        }
        if (top[0] <= nextUse) {
          break;
        }
        farthest.poll();
        victims.add(top);
        freed += sizeOf.applyAsInt(victim);
      }
      if (used - freed + size > capacity) {
        farthest.addAll(victims);
        continue;
      }
      for (long[] v : victims) {
        residentNext[(int) v[1]] = -1;
      }
      used += size - freed;
      residentNext[id] = nextUse;
      farthest.add(new long[] {nextUse, id});
    }
    int measured = n - measuredFrom;
    return measured == 0 ? Double.NaN : (double) hits / measured;
  }

  /**
   * The block reads of a showdown cell as one sequence: each thread's stream from
   * {@link Workload#stream(long, int)}, warm-up then measured operations split over the threads
   * as the runner splits them, interleaved round-robin one operation per thread (the workers'
   * real interleaving varies from run to run; the per-thread sequences do not).
   *
   * @return the trace and, at index {@code [1][0]}, where the measured reads start
   */
  public static int[][] trace(Workload workload, long seed, int threads, long warmupOps,
      long ops) {
    Ops[] streams = new Ops[threads];
    for (int t = 0; t < threads; t++) {
      streams[t] = workload.stream(seed, t)::next;
    }
    int perOp = workload.scenario().pattern() == Pattern.HBASE ? AccessStream.MAX_READS : 1;
    return build(streams, warmupOps, ops, perOp);
  }

  /**
   * {@link #trace} over fixed per-thread sequences of one-read operations, all of which are
   * played: {@code warmupOps} of them warm the cache (for tests).
   */
  static int[][] traceOf(int[][] perThread, long warmupOps) {
    Ops[] sources = new Ops[perThread.length];
    long total = 0;
    for (int t = 0; t < perThread.length; t++) {
      int[] sequence = perThread[t];
      int[] at = {0};
      sources[t] = ids -> {
        ids[0] = sequence[at[0]++];
        return 1;
      };
      total += sequence.length;
    }
    return build(sources, warmupOps, total - warmupOps, 1);
  }

  /** One thread's operations: writes the block ids of the next one, returns how many. */
  @FunctionalInterface
  interface Ops {
    int next(int[] ids);
  }

  private static int[][] build(Ops[] streams, long warmupOps, long ops, int perOp) {
    long length = (warmupOps + ops) * perOp;
    if (length > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a trace of " + length + " reads is too long");
    }
    int[] trace = new int[(int) length];
    int[] ids = new int[AccessStream.MAX_READS];
    int at = interleave(streams, warmupOps, trace, 0, ids);
    int measuredFrom = at;
    at = interleave(streams, ops, trace, at, ids);
    return new int[][] {Arrays.copyOf(trace, at), {measuredFrom}};
  }

  private static int interleave(Ops[] streams, long ops, int[] trace, int at, int[] ids) {
    int threads = streams.length;
    long[] left = new long[threads];
    long most = 0;
    for (int t = 0; t < threads; t++) {
      left[t] = ops / threads + (t < ops % threads ? 1 : 0);
      most = Math.max(most, left[t]);
    }
    for (long round = 0; round < most; round++) {
      for (int t = 0; t < threads; t++) {
        if (left[t] > 0) {
          left[t]--;
          int k = streams[t].next(ids);
          System.arraycopy(ids, 0, trace, at, k);
          at += k;
        }
      }
    }
    return at;
  }
}
