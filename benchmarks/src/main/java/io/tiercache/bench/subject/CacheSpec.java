/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.subject;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;

/**
 * What a subject is built for: the cache capacity in bytes (every subject gets the same, split
 * between tiers where there are two), the typical block size, and a scratch directory of its own
 * for file-backed engines, deleted after the run.
 *
 * <p>Concurrency: immutable; {@link #conf} returns a new configuration on each call.
 */
public final class CacheSpec {
  private final long capacity;
  private final int blockSize;
  private final Path scratchDir;
  private final Map<String, String> overrides;

  public CacheSpec(long capacity, int blockSize, Path scratchDir) {
    this(capacity, blockSize, scratchDir, Map.of());
  }

  private CacheSpec(long capacity, int blockSize, Path scratchDir, Map<String, String> overrides) {
    if (capacity <= 0 || blockSize <= 0) {
      throw new IllegalArgumentException("capacity=" + capacity + " blockSize=" + blockSize);
    }
    this.capacity = capacity;
    this.blockSize = blockSize;
    this.scratchDir = scratchDir;
    this.overrides = overrides;
  }

  /** This spec with one more configuration key set in every {@link #conf} it returns. */
  public CacheSpec with(String key, String value) {
    Map<String, String> more = new LinkedHashMap<>(overrides);
    more.put(key, value);
    return new CacheSpec(capacity, blockSize, scratchDir, Map.copyOf(more));
  }

  public long capacity() {
    return capacity;
  }

  public int blockSize() {
    return blockSize;
  }

  public Path scratchDir() {
    return scratchDir;
  }

  /** A path for a cache file in the scratch directory. */
  public String file(String name) {
    return scratchDir.resolve(name).toString();
  }

  /**
   * A fresh HBase configuration (defaults from {@code hbase-default.xml}) with the block-size hint
   * and the L1 size set for this spec, then the {@link #with} overrides, then {@code keyValues}
   * applied in pairs, e.g.
   * {@code conf("hbase.bucketcache.ioengine", "offheap")}.
   */
  public Configuration conf(String... keyValues) {
    if (keyValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values come in pairs");
    }
    Configuration conf = HBaseConfiguration.create();
    conf.setInt("hbase.blockcache.minblocksize", blockSize);
    conf.setLong("hfile.block.cache.memory.size", capacity);
    conf.setLong("hbase.bucketcache.size", capacity >> 20);
    overrides.forEach(conf::set);
    for (int i = 0; i < keyValues.length; i += 2) {
      conf.set(keyValues[i], keyValues[i + 1]);
    }
    return conf;
  }
}
