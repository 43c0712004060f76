/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import io.tiercache.core.config.CacheSettings;

/**
 * Builds an {@link LruTier} in code. Defaults are those of the configuration keys; each setter
 * is validated against the same range as its key, and {@link #build()} applies the cross-checks
 * (shares add up to 1, window within the single share).
 */
public final class LruTierBuilder {
  private long maxSize = -1;
  private long blockSizeHint = CacheSettings.BLOCK_SIZE_HINT.defaultValue();
  private double singleShare = CacheSettings.L1_SINGLE_SHARE.defaultValue();
  private double multiShare = CacheSettings.L1_MULTI_SHARE.defaultValue();
  private double memoryShare = CacheSettings.L1_MEMORY_SHARE.defaultValue();
  private double windowShare = CacheSettings.L1_WINDOW_SHARE.defaultValue();
  private long maxBlockSize = CacheSettings.L1_MAX_BLOCK_SIZE.defaultValue();
  private boolean forceInMemory = CacheSettings.L1_IN_MEMORY_FORCE.defaultValue();
  private String name = "L1";

  LruTierBuilder() {}

  /** Maximum heap bytes (blocks, keys and per-block overhead). Required. */
  public LruTierBuilder maxSize(long bytes) {
    this.maxSize = bytes;
    return this;
  }

  public LruTierBuilder blockSizeHint(long bytes) {
    this.blockSizeHint = bytes;
    return this;
  }

  /** HBase's single/multi/memory shares; they must add up to 1.0. */
  public LruTierBuilder shares(double single, double multi, double memory) {
    this.singleShare = single;
    this.multiShare = multi;
    this.memoryShare = memory;
    return this;
  }

  public LruTierBuilder windowShare(double share) {
    this.windowShare = share;
    return this;
  }

  public LruTierBuilder maxBlockSize(long bytes) {
    this.maxBlockSize = bytes;
    return this;
  }

  public LruTierBuilder forceInMemory(boolean force) {
    this.forceInMemory = force;
    return this;
  }

  /** Name used in logs and stats, e.g. {@code L1}. */
  public LruTierBuilder name(String name) {
    this.name = name;
    return this;
  }

  public LruTier build() {
    return new LruTier(new LruConfig(maxSize, blockSizeHint, singleShare, multiShare,
        memoryShare, windowShare, maxBlockSize, forceInMemory), name);
  }
}
