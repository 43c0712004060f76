/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.write;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L2's writer threads, each draining its own bounded queue ({@code
 * hbase.bucketcache.writer.threads} × {@code hbase.bucketcache.writer.queuelength}). A key always
 * goes to the same queue, so writes of one key stay in order.
 *
 * <p>{@link #offer} never blocks: when the queue is full it returns false and the caller decides
 * (the L2 writes the block itself into free space, or drops it when none is left).
 *
 * <p>A writer thread never dies of a failed item: whatever {@code apply} throws, {@link Error}s
 * included, is logged and counted ({@link #failures()}), and the thread takes the next item, so
 * a queue always drains and {@link #awaitIdle} always settles.
 *
 * <h2>Concurrency</h2>
 * Any thread may offer. {@code inFlight} counts items offered and not yet applied;
 * {@link #awaitIdle} waits on {@code idle} until it is zero (writers signal after each item).
 *
 * @param <T> the queued item
 */
public final class Writers<T> {
  private static final Logger LOG = LoggerFactory.getLogger(Writers.class);

  private final List<ArrayBlockingQueue<T>> queues = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Consumer<T> apply;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  private long inFlight; // guarded by lock
  private volatile boolean running = true;
  private final AtomicLong failures = new AtomicLong();

  public Writers(String name, int threadCount, int queueLength, Consumer<T> apply) {
    this.apply = apply;
    for (int i = 0; i < threadCount; i++) {
      ArrayBlockingQueue<T> q = new ArrayBlockingQueue<>(queueLength);
      queues.add(q);
      Thread t = new Thread(() -> drain(q), name + "-writer-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** Queues {@code item} on the writer for {@code hash}; false if that queue is full. */
  public boolean offer(int hash, T item) {
    if (!running) {
      return false;
    }
    lock.lock();
    try {
      inFlight++;
    } finally {
      lock.unlock();
    }
    ArrayBlockingQueue<T> q = queues.get(Math.floorMod(hash, queues.size()));
    if (q.offer(item)) {
      if (running || !q.remove(item)) {
        return true; // queued, or stop() already handed it back
      }
      // stop() ran meanwhile and missed it: not queued after all
    }
    done();
    return false;
  }

  private void drain(ArrayBlockingQueue<T> q) {
    while (running) {
      T item;
      try {
        item = q.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (item != null) {
        try {
          apply.accept(item);
        } catch (Throwable t) { // one item fails, the thread goes on (its queue must drain)
          failed(item, t);
        } finally {
          done();
        }
      }
    }
  }

  private void failed(T item, Throwable t) {
    long n = failures.incrementAndGet();
    if (n == 1 || n % 1000 == 0) {
      try {
        LOG.error("L2 writer failed on {} ({} failures so far)", item, n, t);
      } catch (Throwable ignored) { // even logging failed: keep the thread
        // nothing to do
      }
    }
  }

  /** Items whose {@code apply} threw (it should catch its own failures). */
  public long failures() {
    return failures.get();
  }

  private void done() {
    lock.lock();
    try {
      if (--inFlight == 0) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Blocks until every item offered so far has been applied, or the timeout passes. */
  public boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
    long nanos = unit.toNanos(timeout);
    lock.lock();
    try {
      while (inFlight > 0) {
        if (nanos <= 0) {
          return false;
        }
        nanos = idle.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Items queued and not yet applied. */
  public int queued() {
    int n = 0;
    for (ArrayBlockingQueue<T> q : queues) {
      n += q.size();
    }
    return n;
  }

  /**
   * Stops the threads and returns the items they had not applied (no longer counted as in
   * flight). Writers are not interrupted: an interrupt during FileChannel I/O would close the
   * cache file for everyone. A writer thread may call it (its own join is skipped).
   */
  public List<T> stop() {
    running = false;
    for (Thread t : threads) {
      if (t == Thread.currentThread()) {
        continue; // a writer that stops the tier (an error disabled it) returns to its loop
      }
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    List<T> left = new ArrayList<>();
    for (ArrayBlockingQueue<T> q : queues) {
      q.drainTo(left);
    }
    lock.lock();
    try {
      inFlight -= left.size(); // handed back, never to be applied: awaitIdle must not wait
      if (inFlight <= 0) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
    return left;
  }
}
