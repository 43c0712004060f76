/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.engine.DurableIndex;
import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.persist.Checkpoints;
import io.tiercache.bucket.persist.Restore;
import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one L2 survives a restart: its background restore at start (from the engine's durable
 * index or the checkpoint file, see {@link Restore}), its periodic checkpoints
 * ({@link Checkpoints}, null unless a checkpoint file is configured) and the last checkpoint at
 * shutdown.
 *
 * <h2>Concurrency</h2>
 * The restore runs on its own thread, guarded by the tier's {@link EngineGuard}; checkpoints run
 * on the checkpoint thread and at shutdown (see {@link Checkpoints}), never while restoring.
 */
final class TierPersistence {
  private static final Logger LOG = LoggerFactory.getLogger(BucketTier.class);

  private final BucketTier tier;
  private final Engine engine;
  private final BlockStore store;
  private final EngineGuard guard;
  final Checkpoints checkpoints; // null unless a checkpoint file is configured
  final Restore restore;

  TierPersistence(BucketTier tier, Engine engine, Checkpoints checkpoints) {
    this.tier = tier;
    this.engine = engine;
    this.store = tier.store;
    this.guard = tier.guard;
    this.checkpoints = checkpoints;
    boolean warm = (engine.durableIndex() != null && engine.hasDurableRecords())
        || (checkpoints != null && checkpoints.exists());
    this.restore = warm ? new Restore(tier.name) : Restore.none(tier.name);
  }

  /**
   * Starts the restore on {@code restorer} (off the start-up path: the tier answers at once), or,
   * with nothing to restore, logs the cold start and schedules the checkpoints.
   */
  void start(Executor restorer) {
    if (!restore.finished()) {
      restore.start(restorer, this::restoreIndex, this::replay, this::restored);
    } else if (checkpoints != null) {
      checkpoints.restore(); // finds no file: logs the cold start
      checkpoints.schedule();
    }
  }

  /** The restore's work, on its thread: the index from the durable index or the checkpoint. */
  private void restoreIndex() {
    if (!guard.enter()) {
      return; // shut down before it began
    }
    try {
      DurableIndex durable = engine.durableIndex();
      if (durable != null) {
        Checkpoints.restoreDurable(tier.name, durable, store);
      } else {
        checkpoints.restore();
      }
    } finally {
      guard.exit();
    }
  }

  /** Applies again an eviction made while the restore ran. */
  private void replay(Restore.Eviction e) {
    if (!guard.isClosed()) {
      tier.evictFile(e.file, e.from, e.to);
    }
  }

  /** After the restore: periodic checkpoints start. */
  private void restored() {
    if (checkpoints != null && !guard.isClosed()) {
      checkpoints.schedule();
    }
  }

  /** See {@link BucketTier#checkpoint()}. */
  boolean checkpoint() throws IOException {
    if (checkpoints == null || !restore.finished() || !guard.enter()) {
      return false; // none while restoring: a partial index would make the next start colder
    }
    try {
      return checkpoints.writeIfChanged();
    } finally {
      guard.exit();
    }
  }

  /** Stops the periodic checkpoints (first step of a shutdown, repeated by each call). */
  void stopCheckpoints() {
    if (checkpoints != null) {
      checkpoints.stop();
    }
  }

  /**
   * Before the tier closes: waits for a running restore (it holds the engine; it is bounded: it
   * reads records, never blocks), then flushes the writes with {@code flush} and writes the last
   * checkpoint.
   */
  void beforeClose(Runnable flush) {
    if (!restore.finished()) {
      LOG.info("{}: shut down while restoring; waiting for the restore to end", tier.name);
      awaitRestore();
    }
    if (checkpoints != null) {
      flush.run();
      checkpoints.writeQuietly();
    }
  }

  private void awaitRestore() {
    try {
      if (!restore.await(TimeUnit.MINUTES.toMillis(10))) {
        LOG.error("{}: the restore did not end in 10 minutes; shutting down without it",
            tier.name);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Releases the checkpoint's lock (after the engine closed). */
  void close() {
    if (checkpoints != null) {
      checkpoints.close();
    }
  }

  /** Sets the checkpoint interval (a run-time setting). */
  void setInterval(int ms) {
    if (checkpoints != null) {
      checkpoints.setInterval(ms);
    }
  }

  /**
   * The last checkpoint of this run: {@code {age ms, duration ms, file bytes, failed attempts
   * in a row}}, each -1 (failures 0) when none was written or checkpoints are not configured.
   */
  long[] checkpointStatus() {
    Checkpoints c = checkpoints;
    return c == null ? new long[] {-1, -1, -1, 0}
        : new long[] {c.ageMs(), c.lastDurationMs(), c.lastBytes(), c.failuresInARow()};
  }
}
