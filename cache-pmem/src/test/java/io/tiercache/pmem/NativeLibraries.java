/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import org.junit.jupiter.api.Assumptions;

/**
 * Whether the {@code llpl} back end can run on this machine, and what a test that needs it does
 * when it cannot.
 *
 * <p>LLPL's JNI library ({@code libllpl.so}, in its jar) links {@code libpmemobj.so.1} and
 * {@code libpmempool.so.1}, which Debian and Ubuntu ship as the packages {@code libpmemobj1} and
 * {@code libpmempool1}. Outside CI a machine without them skips the tests that need them, with a
 * message saying what to install; in CI they are required and those tests fail instead, so CI
 * never passes by skipping. CI is the environment variable {@code CI=true} (set by
 * {@code .ci/run} and by most CI services) or {@code -Dtiercache.test.requireNative=true}.
 */
final class NativeLibraries {
  static final String PACKAGES = "libpmemobj1 libpmempool1";

  /** Why LLPL cannot load here, or null when it can; probed once per JVM. */
  private static final Throwable LLPL_FAILURE = probeLlpl();

  private NativeLibraries() {}

  private static Throwable probeLlpl() {
    try {
      // Its static initialiser loads libllpl.so, which links libpmemobj and libpmempool.
      Class.forName("com.intel.pmem.llpl.MemoryPoolImpl", true,
          NativeLibraries.class.getClassLoader());
      return null;
    } catch (LinkageError | ClassNotFoundException e) {
      return e;
    }
  }

  /** Skips (outside CI) or fails (in CI) the calling test when {@code backend} cannot run. */
  static void assumeBackend(String backend) {
    if (backend.equals("llpl")) {
      verdict(LLPL_FAILURE, required());
    }
  }

  /** Whether the native libraries are required: in CI. */
  static boolean required() {
    return "true".equalsIgnoreCase(System.getenv("CI"))
        || Boolean.getBoolean("tiercache.test.requireNative");
  }

  /**
   * Returns when {@code failure} is null; otherwise fails with an {@link AssertionError} when
   * {@code required}, else aborts the test (a skip); both messages name the packages.
   */
  static void verdict(Throwable failure, boolean required) {
    if (failure == null) {
      return;
    }
    String why = "the llpl back end cannot load its native libraries (" + failure
        + "): install the Debian/Ubuntu packages " + PACKAGES + " (apt-get install " + PACKAGES
        + "; on RHEL/Fedora: dnf install libpmemobj libpmempool)";
    if (required) {
      throw new AssertionError(why + ". Required in CI (CI=true or "
          + "-Dtiercache.test.requireNative=true), so this test fails instead of skipping", failure);
    }
    Assumptions.abort("skipped: " + why + ". CI (CI=true) requires them and fails instead");
  }
}
