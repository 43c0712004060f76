/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.engine.Engines;
import io.tiercache.bucket.engine.FileGuard;
import java.nio.file.Paths;

/**
 * Run in a child JVM by {@link PoolSafetyTest}: takes the lock guarding the pool args[0] as a
 * cache would, prints {@code locked}, and holds it until its standard input is closed.
 */
public final class PoolLockHolder {
  private PoolLockHolder() {}

  public static void main(String[] args) throws Exception {
    try (FileGuard.Lock lock = FileGuard.lock(Paths.get(args[0]), Engines.KEY)) {
      System.out.println("locked");
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold the lock until the parent closes our stdin
      }
    }
  }
}
