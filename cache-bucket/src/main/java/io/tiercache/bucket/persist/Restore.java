/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L2's warm restart, off the start-up path: the index is restored (from the checkpoint file
 * or the engine's durable index) on its own thread while the tier already answers. Blocks
 * become hits as they are restored; nothing is served that was not published before the
 * restart (the restore publishes a slot only after describing it, and its bytes are verified on
 * first read as before).
 *
 * <h2>While it runs</h2>
 * <ul>
 *   <li>Inserts are dropped (the restore claims the slots its records name; a write must not
 *       take one first), counted in {@link #droppedInserts}. HBase's BucketCache does the same
 *       while its persistence retriever runs.</li>
 *   <li>Evictions are applied at once and also recorded; when the restore ends they are applied
 *       again, so a block evicted before the restore reached it does not come back.</li>
 *   <li>No checkpoint is written (a partial index would make the next start colder): periodic
 *       checkpoints start when the restore ends, and a shutdown meanwhile leaves the previous
 *       checkpoint as it is, which still describes the engine (nothing was written to it).</li>
 * </ul>
 *
 * <h2>Concurrency</h2>
 * {@link #running} is volatile and goes false once; an eviction is queued before it is applied,
 * and the queue is replayed after {@code running} turns false, so every eviction either sees
 * the restore finished or is replayed after it.
 */
public final class Restore {
  private static final Logger LOG = LoggerFactory.getLogger(Restore.class);

  /** An eviction of blocks at offsets {@code [from, to]} of a file, to replay. */
  public static final class Eviction {
    public final String file;
    public final long from;
    public final long to;

    Eviction(String file, long from, long to) {
      this.file = file;
      this.from = from;
      this.to = to;
    }
  }

  private final String tier;
  private final CountDownLatch done = new CountDownLatch(1);
  private final ConcurrentLinkedQueue<Eviction> evictions = new ConcurrentLinkedQueue<>();
  private final java.util.concurrent.atomic.LongAdder droppedInserts =
      new java.util.concurrent.atomic.LongAdder();
  private volatile boolean running;
  private volatile long elapsedMs = -1;

  public Restore(String tier) {
    this.tier = tier;
  }

  /** Nothing to restore: done at once. */
  public static Restore none(String tier) {
    Restore r = new Restore(tier);
    r.done.countDown();
    r.elapsedMs = 0;
    return r;
  }

  /** Runs each restore on a new daemon thread. */
  public static Executor threadPerRestore(String tier) {
    return task -> {
      Thread t = new Thread(task, "tiercache-" + tier + "-restore");
      t.setDaemon(true);
      t.start();
    };
  }

  /**
   * Runs {@code work} on {@code executor}, then replays the evictions recorded meanwhile through
   * {@code replay}, then {@code after} (checkpoint scheduling).
   */
  public void start(Executor executor, Runnable work, Consumer<Eviction> replay, Runnable after) {
    running = true;
    executor.execute(() -> run(work, replay, after));
  }

  private void run(Runnable work, Consumer<Eviction> replay, Runnable after) {
    long start = System.nanoTime();
    try {
      RestoreGate.pass(tier); // a test hook; open unless a test holds it
      work.run();
    } catch (Throwable t) {
      LOG.error("{}: restore failed; the blocks not restored yet start cold", tier, t);
    } finally {
      running = false;
      try {
        for (Eviction e = evictions.poll(); e != null; e = evictions.poll()) {
          replay.accept(e);
        }
        after.run();
      } catch (Throwable t) {
        LOG.error("{}: finishing the restore failed", tier, t);
      }
      elapsedMs = (System.nanoTime() - start) / 1_000_000;
      done.countDown();
      LOG.info("{}: restore finished in {} ms ({} inserts dropped meanwhile)", tier, elapsedMs,
          droppedInserts.sum());
    }
  }

  /** Whether the restore is still running (inserts are dropped, evictions recorded). */
  public boolean running() {
    return running;
  }

  /** Records an eviction to replay if the restore is running; call before evicting. */
  public void evicting(String file, long from, long to) {
    if (running) {
      evictions.add(new Eviction(file, from, to));
    }
  }

  /** Counts an insert dropped because the restore runs. */
  public void droppedInsert() {
    droppedInserts.increment();
  }

  public long droppedInserts() {
    return droppedInserts.sum();
  }

  /** Waits up to {@code timeoutMs} for the restore to end; true if it has. */
  public boolean await(long timeoutMs) throws InterruptedException {
    return done.await(Math.max(0, timeoutMs), TimeUnit.MILLISECONDS);
  }

  public boolean finished() {
    return done.getCount() == 0;
  }

  /** How long the restore took, or -1 while it runs. */
  public long elapsedMs() {
    return elapsedMs;
  }
}
