/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import io.tiercache.bucket.engine.Engine;
import io.tiercache.bucket.engine.EngineProvider;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.SettingException;
import java.io.IOException;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.Map;

/**
 * Serves {@code hbase.bucketcache.ioengine=pmem:PATH} (HBase's syntax) to the L2 through
 * {@link java.util.ServiceLoader}; cache-bucket does not depend on this module. The back end is
 * {@code tiercache.pmem.backend} ({@code dax} by default).
 *
 * <p>Stateless and thread safe.
 */
public final class PmemEngineProvider implements EngineProvider {
  @Override
  public String scheme() {
    return "pmem";
  }

  /** Without the L2's slot sizes: the default bucket sizes and the default back end. */
  @Override
  public Engine open(String path, long capacity, int slabSize) throws IOException {
    return open(path, capacity, slabSize, CacheSettings.L2_BUCKET_SIZES.defaultValue(),
        Collections.emptyMap());
  }

  @Override
  public Engine open(String path, long capacity, int slabSize, int[] slotSizes,
      Map<String, String> options) throws IOException {
    Backend backend;
    try {
      backend = Backend.of(options.get(Backend.KEY));
    } catch (SettingException e) {
      throw new IOException(e.getMessage(), e);
    }
    return PmemEngine.open(Paths.get(path), new PoolLayout(capacity, slabSize, slotSizes),
        backend);
  }
}
