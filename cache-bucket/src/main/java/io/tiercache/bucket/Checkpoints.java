/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L2's index checkpoints for the {@code file}, {@code files} and {@code mmap} engines with
 * {@code hbase.bucketcache.persistent.path}: restores the index at start, then writes a
 * checkpoint every {@code hbase.bucketcache.persist.intervalinmillis} when the index changed, on
 * one daemon thread, and once more at shutdown. {@link Persistence} holds the file format.
 *
 * <h2>Concurrency</h2>
 * {@link #writeIfChanged} is synchronised (one checkpoint at a time). The tier calls it inside its
 * engine-use guard, so the engine is not closed under a checkpoint; the scheduled and the
 * shutdown checkpoints go through the tier's guarded {@code checkpoint()}, given here as
 * {@code guardedWrite}.
 */
final class Checkpoints {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);

  private final String name;
  private final Persistence persistence;
  private final BlockStore store;
  private final Callable<Boolean> guardedWrite;
  private final ScheduledExecutorService scheduler;
  private long written; // guarded by this: the store's mutation count at the last checkpoint

  /** Restores the index from the checkpoint (a cold start if there is none) and schedules. */
  Checkpoints(String name, Persistence persistence, BlockStore store, int intervalMs,
      Callable<Boolean> guardedWrite) {
    this.name = name;
    this.persistence = persistence;
    this.store = store;
    this.guardedWrite = guardedWrite;
    persistence.restore(h -> store.account(h, +1));
    this.written = store.mutations();
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tiercache-" + name + "-checkpoint");
      t.setDaemon(true);
      return t;
    });
    scheduler.scheduleWithFixedDelay(this::writeQuietly, intervalMs, intervalMs,
        TimeUnit.MILLISECONDS);
  }

  /** Writes a checkpoint if the index changed since the last one; returns whether it did. */
  synchronized boolean writeIfChanged() throws IOException {
    long seen = store.mutations();
    if (seen == written) {
      return false;
    }
    persistence.checkpoint();
    written = seen;
    return true;
  }

  /** Runs the tier's guarded checkpoint, logging a failure rather than throwing it. */
  void writeQuietly() {
    try {
      guardedWrite.call();
    } catch (Exception e) {
      LOG.warn("{}: checkpoint failed; the next restart may be colder", name, e);
    }
  }

  /** Stops the periodic checkpoints (the caller writes the last one). */
  void stop() {
    scheduler.shutdownNow();
  }
}
