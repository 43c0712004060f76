/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.core.config.CacheSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The back ends of the {@code pmem:} engine, chosen by {@code tiercache.pmem.backend}. A back end
 * that cannot start fails with what to install or set; there is no fallback to the other, so an
 * operator always knows which code path holds the data.
 */
enum Backend {
  /** Java mapping of the pool file: fsdax, CXL-DAX, tmpfs. No native code. */
  DAX,
  /** Intel LLPL {@code MemoryPool} with libpmem flushes. */
  LLPL;

  static final String KEY = CacheSettings.PMEM_BACKEND.key();

  /** Parses a key value ({@code dax} or {@code llpl}, validated by {@code CacheSettings}). */
  static Backend of(String value) {
    String v = value == null ? CacheSettings.PMEM_BACKEND.defaultValue()
        : CacheSettings.PMEM_BACKEND.check(value.trim().toLowerCase(Locale.ROOT));
    return v.equals("llpl") ? LLPL : DAX;
  }

  /** Maps the existing pool file {@code path} of {@code size} bytes. */
  PmemRegion open(Path path, long size, int chunkSize) throws IOException {
    if (this == DAX) {
      return new DaxRegion(path, size, chunkSize);
    }
    try {
      return LlplRegion.open(path, size, chunkSize);
    } catch (LinkageError e) { // the LLPL jar is missing: LlplRegion itself cannot link
      throw new IOException(cannotStart(e), e);
    }
  }

  /** The message for an LLPL that cannot load, with what to install or set. */
  String cannotStart(Throwable cause) {
    return KEY + "=llpl cannot start: " + cause + ". The llpl back end needs the jar "
        + "com.intel.pmem:llpl on the RegionServer classpath (it carries libllpl.so) and the "
        + "native libraries it links: on Debian/Ubuntu 'apt-get install libpmemobj1 "
        + "libpmempool1', on RHEL/Fedora 'dnf install libpmemobj libpmempool'; or set " + KEY
        + "=dax, which needs no native code";
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
