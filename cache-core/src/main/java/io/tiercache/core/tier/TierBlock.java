/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.tier;

import java.util.Objects;
import org.apache.hadoop.hbase.io.hfile.BlockPriority;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;

/**
 * An immutable description of one cached block, as the RegionServer web UI lists them through
 * {@code BlockCache.iterator()}. Ordered by file name, then offset, then newest first, as HBase's
 * own caches order theirs (the UI groups blocks in a sorted set, so the order must tell distinct
 * blocks apart).
 */
public final class TierBlock implements CachedBlock {
  private final String filename;
  private final long offset;
  private final BlockType type;
  private final BlockPriority priority;
  private final long size;
  private final long cachedTimeNanos;

  public TierBlock(String filename, long offset, BlockType type, BlockPriority priority,
      long size, long cachedTimeNanos) {
    this.filename = Objects.requireNonNull(filename);
    this.offset = offset;
    this.type = type;
    this.priority = priority;
    this.size = size;
    this.cachedTimeNanos = cachedTimeNanos;
  }

  @Override
  public BlockPriority getBlockPriority() {
    return priority;
  }

  @Override
  public BlockType getBlockType() {
    return type;
  }

  @Override
  public long getOffset() {
    return offset;
  }

  @Override
  public long getSize() {
    return size;
  }

  @Override
  public long getCachedTime() {
    return cachedTimeNanos;
  }

  @Override
  public String getFilename() {
    return filename;
  }

  @Override
  public int compareTo(CachedBlock other) {
    int diff = filename.compareTo(other.getFilename());
    if (diff != 0) {
      return diff;
    }
    diff = Long.compare(offset, other.getOffset());
    if (diff != 0) {
      return diff;
    }
    return Long.compare(other.getCachedTime(), cachedTimeNanos);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CachedBlock && compareTo((CachedBlock) o) == 0;
  }

  @Override
  public int hashCode() {
    return filename.hashCode() * 31 + Long.hashCode(offset);
  }

  @Override
  public String toString() {
    return filename + "@" + offset + " " + type + " " + priority + " " + size + "B";
  }
}
