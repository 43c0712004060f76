/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** A missing native library skips a test outside CI and fails it in CI, naming the packages. */
class NativeLibrariesTest {
  private static final Throwable MISSING = new UnsatisfiedLinkError(
      "libpmemobj.so.1: cannot open shared object file: No such file or directory");

  @Test
  void verdict_missingOutsideCi_skipsNamingThePackages() {
    TestAbortedException e = assertThrows(TestAbortedException.class,
        () -> NativeLibraries.verdict(MISSING, false));
    assertTrue(e.getMessage().contains("libpmemobj1 libpmempool1"), e.getMessage());
  }

  @Test
  void verdict_missingInCi_fails() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> NativeLibraries.verdict(MISSING, true));
    assertTrue(e.getMessage().contains("libpmemobj1 libpmempool1"), e.getMessage());
  }

  @Test
  void verdict_present_runs() {
    NativeLibraries.verdict(null, true);
    NativeLibraries.verdict(null, false);
  }
}
