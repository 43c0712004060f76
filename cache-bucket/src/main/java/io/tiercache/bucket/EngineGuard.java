/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps the L2's engine open while anything uses its memory: a pinned read (until the block's
 * last release), a write, a checkpoint, the restore. The tier closes ({@link #close}) at
 * shutdown; the engine is closed by whoever leaves last, once.
 *
 * <h2>Invariants</h2>
 * The engine is closed only once the tier is closed and no use is registered; {@link #enter}
 * after {@link #close} registers nothing and returns false.
 *
 * <p>Thread safe (atomics).
 */
final class EngineGuard {
  /** Pinned reads plus writes in progress: the engine closes only when this is zero. */
  private final AtomicLong inEngine = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean engineClosed = new AtomicBoolean();
  private final Runnable closeEngine;

  /** {@code closeEngine} closes the engine (and what goes with it); run once. */
  EngineGuard(Runnable closeEngine) {
    this.closeEngine = closeEngine;
  }

  /**
   * Registers a use of engine memory so that shutdown does not close the engine under it; false
   * if the tier is closed, and then nothing is registered.
   */
  boolean enter() {
    inEngine.incrementAndGet();
    if (closed.get()) {
      exit();
      return false;
    }
    return true;
  }

  /** Ends a use; the last one after {@link #close} closes the engine. */
  void exit() {
    if (inEngine.decrementAndGet() == 0 && closed.get()) {
      closeEngineIfIdle();
    }
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Marks the tier closed; true for the caller that closed it. */
  boolean close() {
    return closed.compareAndSet(false, true);
  }

  /** Closes the engine now if the tier is closed and nothing uses it (once). */
  void closeEngineIfIdle() {
    if (inEngine.get() == 0 && engineClosed.compareAndSet(false, true)) {
      closeEngine.run();
    }
  }
}
