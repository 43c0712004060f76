/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * What the JVM as a whole spent: heap bytes allocated by every live thread (the workers and the
 * cache's own background threads: writers, evictors, the common pool), and garbage collections
 * with their accumulated time (pause time for G1's young and old collectors).
 *
 * <p>Allocation is compared thread by thread: a thread born between two snapshots counts from
 * zero; one that ended takes its allocations with it, so the runner keeps its workers alive across
 * both snapshots (a cache's threads live as long as the cache).
 *
 * <p>Concurrency: a snapshot is immutable; {@link #now()} may be called from any thread.
 */
final class JvmMeters {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static {
    if (THREADS.isThreadAllocatedMemorySupported() && !THREADS.isThreadAllocatedMemoryEnabled()) {
      THREADS.setThreadAllocatedMemoryEnabled(true);
    }
  }

  private final Map<Long, Long> allocatedByThread;
  final long gcCount;
  final long gcMillis;

  private JvmMeters(Map<Long, Long> allocatedByThread, long gcCount, long gcMillis) {
    this.allocatedByThread = allocatedByThread;
    this.gcCount = gcCount;
    this.gcMillis = gcMillis;
  }

  /** Reads the meters now. */
  static JvmMeters now() {
    long[] ids = THREADS.getAllThreadIds();
    long[] bytes = THREADS.getThreadAllocatedBytes(ids);
    Map<Long, Long> byThread = new HashMap<>(2 * ids.length);
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) {
        byThread.put(ids[i], bytes[i]);
      }
    }
    long count = 0;
    long millis = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      count += Math.max(0, gc.getCollectionCount());
      millis += Math.max(0, gc.getCollectionTime());
    }
    return new JvmMeters(byThread, count, millis);
  }

  /** Heap bytes allocated since {@code before} by the threads alive now. */
  long allocatedSince(JvmMeters before) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : allocatedByThread.entrySet()) {
      sum += Math.max(0, e.getValue() - before.allocatedByThread.getOrDefault(e.getKey(), 0L));
    }
    return sum;
  }
}
