/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.write;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
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
      // A stop() that drained the queues between the check above and this offer would leave
      // the item queued for good (its block never released): take it back if still there.
      if (running || !q.remove(item)) {
        return true;
      }
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
        } catch (RuntimeException e) {
          LOG.error("L2 writer failed on {}", item, e);
        } finally {
          done();
        }
      }
    }
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
   * Stops the threads and returns the items they had not applied. Writers are not interrupted:
   * an interrupt during FileChannel I/O would close the cache file for everyone. A writer may
   * call this itself (its write disabled the tier): it does not wait for its own end.
   */
  public List<T> stop() {
    running = false;
    for (Thread t : threads) {
      if (t == Thread.currentThread()) {
        continue;
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
    return left;
  }
}
