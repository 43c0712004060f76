/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.alloc.SizeClasses;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.config.Sizes;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * The L2's direct memory, counted at start-up: the slot records (taken in full when the tier is
 * built, never grown later) and, for {@code offheap}, the slabs themselves. (The index is on the
 * heap, in per-file tables that grow with the blocks cached: {@code index.BlockIndex}.)
 *
 * <p>For {@code offheap}, {@code hbase.bucketcache.size} is the L2's whole direct-memory budget,
 * as it is for HBase's BucketCache: the slot records are carved out of it, and the slabs get
 * what is left (rounded down to whole slabs). For the other engines the blocks live in a file or
 * a mapping, and the slot records are direct memory beside it. Either
 * way the tier checks, before it allocates anything, that the JVM's direct-memory limit
 * ({@code -XX:MaxDirectMemorySize}) leaves room for what it will take, and refuses to start
 * otherwise, naming {@code hbase.bucketcache.size}: an {@code OutOfMemoryError} at start-up or,
 * worse, in {@code cacheBlock} (which aborts a RegionServer) cannot happen.
 */
final class DirectBudget {
  private DirectBudget() {}

  /** Direct memory of the slot records of a {@code capacity}-byte L2. */
  static long metadataBytes(long capacity, int slabSize, SizeClasses classes) {
    return SlabAllocator.recordBytesFor(capacity, slabSize, classes);
  }

  /**
   * The block capacity of an {@code offheap} L2 whose whole direct memory is {@code budget}
   * bytes: the largest whole number of slabs that fits beside its own slot records;
   * 0 if not even one slab does.
   */
  static long offHeapCapacity(long budget, int slabSize, SizeClasses classes) {
    long slabs = budget / slabSize;
    while (slabs > 0
        && slabs * slabSize + metadataBytes(slabs * slabSize, slabSize, classes) > budget) {
      slabs--;
    }
    return slabs * slabSize;
  }

  /** The direct memory this JVM may still allocate: its limit minus what is in use. */
  static long available() {
    return available(maxDirectMemory(), DirectBudget::directInUse);
  }

  static long available(long limit, LongSupplier inUse) {
    return Math.max(0, limit - inUse.getAsLong());
  }

  /**
   * Refuses to start unless {@code need} bytes of direct memory are available.
   *
   * @param what what the bytes are for, for the message
   */
  static void check(long need, long available, String what) {
    if (need > available) {
      throw new SettingException(CacheSettings.L2_SIZE.key(), "the L2 needs "
          + Sizes.format(need) + " of direct memory (" + what + "), but only "
          + Sizes.format(available) + " of the JVM's limit (-XX:MaxDirectMemorySize, "
          + Sizes.format(maxDirectMemory()) + ") is free; raise -XX:MaxDirectMemorySize "
          + "(HBASE_OFFHEAPSIZE), lower " + CacheSettings.L2_SIZE.key() + ", or use larger "
          + CacheSettings.L2_BUCKET_SIZES.key() + " (the slot records are sized for "
          + "the smallest)");
    }
  }

  /**
   * Refuses to start unless the direct memory {@code config} takes (slot records, and
   * the slabs for {@code offheap}) is available: checked before the engine opens, so nothing is
   * left open when it is not there.
   */
  static void check(BucketConfig config) {
    check(config.directBytes(), available(), BucketConfig.isOffHeap(config.ioEngine)
        ? Sizes.format(config.capacity) + " of slabs and " + Sizes.format(config.metadataBytes())
            + " of slot records"
        : Sizes.format(config.metadataBytes()) + " of slot records for "
            + Sizes.format(config.capacity) + " of " + config.ioEngine);
  }

  /** The start-up error for direct memory that ran out while the tier allocated it. */
  static SettingException refused(BucketConfig config, OutOfMemoryError cause) {
    SettingException e = new SettingException(CacheSettings.L2_SIZE.key(), "the L2's "
        + "slot records (" + Sizes.format(config.metadataBytes()) + " of direct memory) could not "
        + "be allocated: " + cause.getMessage() + "; raise -XX:MaxDirectMemorySize "
        + "(HBASE_OFFHEAPSIZE) or lower " + CacheSettings.L2_SIZE.key());
    e.initCause(cause);
    return e;
  }

  /**
   * {@code -XX:MaxDirectMemorySize}, or the maximum heap when it is not set (the JDK's own
   * default).
   */
  static long maxDirectMemory() {
    try {
      com.sun.management.HotSpotDiagnosticMXBean hotspot = ManagementFactory
          .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
      long configured = Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
      return configured > 0 ? configured : Runtime.getRuntime().maxMemory();
    } catch (RuntimeException e) {
      return Runtime.getRuntime().maxMemory(); // not HotSpot: the JDK's default
    }
  }

  /** Direct memory the JVM has handed out (direct buffers; mappings are not counted). */
  static long directInUse() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    return 0;
  }
}
