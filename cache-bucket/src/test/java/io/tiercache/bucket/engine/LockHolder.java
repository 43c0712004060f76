/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.nio.file.Paths;

/**
 * Run in a child JVM by the lock tests: takes the lock guarding args[0] as a cache would, prints
 * {@code locked}, and holds it until its standard input is closed.
 */
public final class LockHolder {
  private LockHolder() {}

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
