/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.persist;

import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.core.config.CacheSettings;
import java.io.IOException;
import java.nio.file.Paths;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L2's index checkpoints for the {@code file}, {@code files} and {@code mmap} engines with
 * {@code hbase.bucketcache.persistent.path}: restores the index at start (on the tier's
 * {@link Restore} thread), then writes a
 * checkpoint every {@code hbase.bucketcache.persist.intervalinmillis} when the index changed, on
 * one daemon thread, and once more at shutdown. {@link Persistence} holds the file format.
 * {@link #open} chooses: an engine with its own durable index is restored from it instead, and
 * has no checkpoints.
 *
 * <h2>Concurrency</h2>
 * {@link #writeIfChanged} is synchronised (one checkpoint at a time). The tier calls it inside its
 * engine-use guard, so the engine is not closed under a checkpoint; the scheduled and the
 * shutdown checkpoints go through the tier's guarded {@code checkpoint()}, given here as
 * {@code guardedWrite}. {@link #writeQuietly} runs on the checkpoint thread and once at shutdown
 * (after {@link #stop}); its failure log is guarded by itself.
 *
 * <h2>Failures</h2>
 * A checkpoint that fails (a full disk, a directory removed under the RegionServer) is retried
 * every interval. The first failure of a run is logged as a WARN with its stack trace, later ones
 * at most once a minute as one line with the count ({@link FailureLog}), and the first success
 * after a run says how many failed, so a lasting fault does not write a stack trace a second.
 */
public final class Checkpoints {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);

  private final String name;
  private final Persistence persistence;
  private final IndexedBlocks blocks;
  private final Callable<Boolean> guardedWrite;
  private final ScheduledExecutorService scheduler;
  private volatile int intervalMs; // changed online by onConfigurationChange
  /** Guards {@link #next} and {@link #chain}: scheduling never waits for a checkpoint. */
  private final Object scheduling = new Object();
  private ScheduledFuture<?> next; // guarded by scheduling: the pending run
  private long chain; // guarded by scheduling: a run reschedules only if its chain is current
  private final FailureLog failures = new FailureLog(FailureLog.INTERVAL_NANOS);
  private long written; // guarded by this: the blocks' mutation count at the last checkpoint
  // The last checkpoint written, for metrics (written under this, read by anyone).
  private volatile long lastWrittenNanos;
  private volatile long lastDurationNanos = -1;
  private volatile long lastBytes = -1;

  /** Keeps the checkpoint of {@code persistence}; {@link #restore} and {@link #schedule} follow. */
  Checkpoints(String name, Persistence persistence, IndexedBlocks blocks, int intervalMs,
      Callable<Boolean> guardedWrite) {
    this.name = name;
    this.persistence = persistence;
    this.blocks = blocks;
    this.guardedWrite = guardedWrite;
    this.intervalMs = intervalMs;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tiercache-" + name + "-checkpoint");
      t.setDaemon(true);
      return t;
    });
  }

  /** Restores the index from the checkpoint (a cold start if there is none). */
  public synchronized void restore() {
    persistence.restore();
    written = blocks.mutations();
  }

  /** Whether a checkpoint file is there to restore from. */
  public boolean exists() {
    return persistence.exists();
  }

  /** Starts the periodic checkpoints (after the restore). */
  public void schedule() {
    synchronized (scheduling) {
      scheduleNext(chain);
    }
  }

  /**
   * Schedules the next run of {@code runChain} with the interval now in force (each run
   * schedules the next, so a longer interval applies from the next run).
   */
  private void scheduleNext(long runChain) {
    assert Thread.holdsLock(scheduling);
    try {
      next = scheduler.schedule(() -> tick(runChain), intervalMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // stopped: no more checkpoints
    }
  }

  private void tick(long runChain) {
    try {
      writeQuietly();
    } finally {
      synchronized (scheduling) {
        if (runChain == chain) {
          scheduleNext(runChain);
        }
      }
    }
  }

  /**
   * Sets the interval between checkpoints. A longer one applies from the next run; a shorter one
   * at once: the pending run is replaced by one due after the new interval, so an operator who
   * shortens a long interval online does not wait out the old one (issue 12). A run already in
   * progress finishes, and its chain ends (it no longer matches {@link #chain}).
   */
  public void setInterval(int ms) {
    synchronized (scheduling) {
      int before = intervalMs;
      intervalMs = ms;
      if (ms < before && next != null) {
        next.cancel(false);
        chain++;
        scheduleNext(chain);
      }
    }
  }

  /**
   * The checkpoints of a persistent engine with {@code hbase.bucketcache.persistent.path}
   * ({@code persistentPath}, null if not set), or null: none configured, or an engine with its
   * own durable index (which is restored from that instead, see {@link #restoreDurable}).
   * {@code geometry} is what the checkpoint must match to be restored.
   *
   * @throws io.tiercache.core.config.SettingException naming the path's key if another cache
   *     holds its lock
   */
  public static Checkpoints open(String name, String persistentPath, int intervalMs,
      Engine engine, Checkpoint.Geometry geometry, IndexedBlocks blocks,
      Callable<Boolean> guardedWrite) {
    if (engine.durableIndex() != null) {
      if (persistentPath != null) {
        LOG.info("{}: {} keeps its index itself; {} is not used", name, engine.describe(),
            CacheSettings.L2_PERSISTENT_PATH.key());
      }
      return null;
    }
    if (persistentPath == null || !engine.isPersistent()) {
      return null;
    }
    return new Checkpoints(name, new Persistence(name, Paths.get(persistentPath), geometry,
        engine, blocks), blocks, intervalMs, guardedWrite);
  }

  /**
   * Validates a checkpoint path at start-up, before the engine opens ({@link
   * Persistence#checkPath}).
   *
   * @throws io.tiercache.core.config.SettingException naming the path's key and what is wrong
   */
  public static void checkPath(String persistentPath) {
    Persistence.checkPath(persistentPath);
  }

  /** Restores the index from the engine's own durable index ({@code pmem:}). */
  public static void restoreDurable(String name, DurableIndex durable, IndexedBlocks blocks) {
    Persistence.restore(name, durable, blocks);
  }

  /** Writes a checkpoint if the index changed since the last one; returns whether it did. */
  public synchronized boolean writeIfChanged() throws IOException {
    long seen = blocks.mutations();
    if (seen == written) {
      return false;
    }
    long start = System.nanoTime();
    persistence.checkpoint();
    written = seen;
    long end = System.nanoTime();
    lastDurationNanos = end - start;
    lastBytes = persistence.fileBytes();
    lastWrittenNanos = end;
    return true;
  }

  /** Milliseconds since the last checkpoint was written, or -1 if none was this run. */
  public long ageMs() {
    return lastDurationNanos < 0 ? -1 : (System.nanoTime() - lastWrittenNanos) / 1_000_000;
  }

  /** How long the last checkpoint took, in milliseconds, or -1 if none was written this run. */
  public long lastDurationMs() {
    return lastDurationNanos < 0 ? -1 : lastDurationNanos / 1_000_000;
  }

  /** Bytes of the last checkpoint file written this run, or -1. */
  public long lastBytes() {
    return lastBytes;
  }

  /** Checkpoint attempts that failed since the last one that worked. */
  public long failuresInARow() {
    return failures.inARow();
  }

  /** Runs the tier's guarded checkpoint, logging a failure rather than throwing it. */
  public void writeQuietly() {
    try {
      if (guardedWrite.call()) {
        long failed = failures.succeeded();
        if (failed > 0) {
          LOG.info("{}: checkpoint written again after {} failed attempts", name, failed);
        }
      }
    } catch (Exception e) {
      switch (failures.failed(System.nanoTime())) {
        case FIRST:
          LOG.warn("{}: checkpoint failed; the next restart may be colder. Retried every {} ms; "
              + "further failures are logged at most once a minute", name, intervalMs, e);
          break;
        case SUMMARY:
          LOG.warn("{}: checkpoint still failing: {} failed attempts in a row; latest: {}", name,
              failures.inARow(), e.toString());
          break;
        default:
          break;
      }
    }
  }

  /** Stops the periodic checkpoints (the caller writes the last one). */
  public void stop() {
    scheduler.shutdownNow();
  }

  /** Releases the checkpoint's lock (after the last checkpoint). */
  public void close() {
    persistence.close();
  }

  /**
   * How much of a run of failures is logged: the first in full, then at most one line per
   * {@code interval}. Times are {@code System.nanoTime()} values, passed in so tests need no
   * clock. Thread safe (synchronized).
   */
  static final class FailureLog {
    static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** What to log for a failure. */
    enum Verdict { FIRST, SUMMARY, QUIET }

    private final long interval;
    private long inARow;
    private long lastLogged;

    FailureLog(long intervalNanos) {
      this.interval = intervalNanos;
    }

    synchronized Verdict failed(long now) {
      inARow++;
      if (inARow == 1) {
        lastLogged = now;
        return Verdict.FIRST;
      }
      if (now - lastLogged >= interval) {
        lastLogged = now;
        return Verdict.SUMMARY;
      }
      return Verdict.QUIET;
    }

    /** Ends a run of failures; returns how long it was. */
    synchronized long succeeded() {
      long run = inARow;
      inARow = 0;
      return run;
    }

    synchronized long inARow() {
      return inARow;
    }
  }
}
