/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.core.tier.CacheTier;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileInfo;
import org.apache.hadoop.hbase.util.Pair;

/**
 * A {@link BlockCache} that forwards every call to a TierCache tier; subclasses override what
 * they change ({@link TieredBlockCache}'s demotion hook answers no lookups, {@link ExternalL2Cache}
 * logs when HBase builds it).
 */
abstract class ForwardingBlockCache implements BlockCache {
  private final CacheTier tier;

  ForwardingBlockCache(CacheTier tier) {
    this.tier = tier;
  }

  /** The tier calls go to. */
  CacheTier delegate() {
    return tier;
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory) {
    tier.cacheBlock(key, buf, inMemory);
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf, boolean inMemory,
      boolean waitWhenCache) {
    tier.cacheBlock(key, buf, inMemory, waitWhenCache);
  }

  @Override
  public void cacheBlock(BlockCacheKey key, Cacheable buf) {
    tier.cacheBlock(key, buf);
  }

  @Override
  public Cacheable getBlock(BlockCacheKey key, boolean caching, boolean repeat,
      boolean updateCacheMetrics) {
    return tier.getBlock(key, caching, repeat, updateCacheMetrics);
  }

  @Override
  public Optional<Boolean> isAlreadyCached(BlockCacheKey key) {
    return tier.isAlreadyCached(key);
  }

  @Override
  public boolean evictBlock(BlockCacheKey key) {
    return tier.evictBlock(key);
  }

  @Override
  public int evictBlocksByHfileName(String hfileName) {
    return tier.evictBlocksByHfileName(hfileName);
  }

  @Override
  public int evictBlocksRangeByHfileName(String hfileName, long initOffset, long endOffset) {
    return tier.evictBlocksRangeByHfileName(hfileName, initOffset, endOffset);
  }

  @Override
  public Optional<Integer> getBlockSize(BlockCacheKey key) {
    return tier.getBlockSize(key);
  }

  @Override
  public Optional<Boolean> blockFitsIntoTheCache(HFileBlock block) {
    return tier.blockFitsIntoTheCache(block);
  }

  @Override
  public void notifyFileCachingCompleted(Path fileName, int totalBlockCount, int dataBlockCount,
      long size) {
    tier.notifyFileCachingCompleted(fileName, totalBlockCount, dataBlockCount, size);
  }

  @Override
  public Optional<Map<String, Pair<String, Long>>> getFullyCachedFiles() {
    return tier.getFullyCachedFiles();
  }

  @Override
  public Optional<Map<String, Long>> getRegionCachedInfo() {
    return tier.getRegionCachedInfo();
  }

  @Override
  public Optional<Boolean> shouldCacheFile(HFileInfo hFileInfo, Configuration conf) {
    return tier.shouldCacheFile(hFileInfo, conf);
  }

  @Override
  public Optional<Boolean> shouldCacheBlock(BlockCacheKey key, long maxTimeStamp,
      Configuration conf) {
    return tier.shouldCacheBlock(key, maxTimeStamp, conf);
  }

  @Override
  public void onConfigurationChange(Configuration conf) {
    tier.onConfigurationChange(conf);
  }

  @Override
  public CacheStats getStats() {
    return tier.getStats();
  }

  @Override
  public void shutdown() {
    tier.shutdown();
  }

  @Override
  public long size() {
    return tier.size();
  }

  @Override
  public long getMaxSize() {
    return tier.getMaxSize();
  }

  @Override
  public long getFreeSize() {
    return tier.getFreeSize();
  }

  @Override
  public long getCurrentSize() {
    return tier.getCurrentSize();
  }

  @Override
  public long getCurrentDataSize() {
    return tier.getCurrentDataSize();
  }

  @Override
  public long getBlockCount() {
    return tier.getBlockCount();
  }

  @Override
  public long getDataBlockCount() {
    return tier.getDataBlockCount();
  }

  @Override
  public Iterator<CachedBlock> iterator() {
    return tier.iterator();
  }

  @Override
  public BlockCache[] getBlockCaches() {
    return tier.getBlockCaches();
  }
}
