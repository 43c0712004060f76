/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.SettingException;
import io.tiercache.core.metrics.PublishesMetrics;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CombinedBlockCache;
import org.apache.hadoop.hbase.io.hfile.ResizableBlockCache;

/**
 * Builds the block cache named by {@code hbase.blockcache.class}: a class with a public
 * {@code (Configuration)} constructor that is a {@link ResizableBlockCache} or a
 * {@link CombinedBlockCache} (HBase's HeapMemoryManager casts the RegionServer's cache to
 * {@code ResizableBlockCache}; a plain {@code BlockCache} aborts the RegionServer at startup).
 * Every failure is a {@link SettingException} naming the key, the class and what to do. A tier
 * loaded alone ({@code io.tiercache.lru.LruTier}) is then asked to publish its metrics
 * ({@link PublishesMetrics}).
 */
final class BlockCacheLoader {
  private BlockCacheLoader() {}

  /** Builds the configured cache. */
  static BlockCache create(Configuration conf) {
    String name = CacheSettings.BLOCKCACHE_CLASS.get(conf);
    Constructor<? extends BlockCache> ctor = constructorOf(name, conf.getClassLoader());
    BlockCache cache;
    try {
      cache = ctor.newInstance(conf);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SettingException) {
        throw (SettingException) cause;
      }
      throw fail(name, "could not be built: " + cause, cause);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw fail(name, "could not be built: " + e, e);
    }
    if (cache instanceof PublishesMetrics) { // a tier alone: the combined cache publishes itself
      ((PublishesMetrics) cache).publishMetrics(conf);
    }
    return cache;
  }

  private static Constructor<? extends BlockCache> constructorOf(String name, ClassLoader loader) {
    Class<?> type;
    try {
      type = Class.forName(name, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw fail(name, "was not found on the RegionServer's classpath (is the TierCache plugin "
          + "jar in $HBASE_HOME/lib?)", e);
    }
    if (!BlockCache.class.isAssignableFrom(type)) {
      throw fail(name, "is not an org.apache.hadoop.hbase.io.hfile.BlockCache", null);
    }
    if (!ResizableBlockCache.class.isAssignableFrom(type)
        && !CombinedBlockCache.class.isAssignableFrom(type)) {
      throw fail(name, "is neither a ResizableBlockCache nor a CombinedBlockCache; HBase's "
          + "HeapMemoryManager needs one of them", null);
    }
    if (Modifier.isAbstract(type.getModifiers())) {
      throw fail(name, "is abstract", null);
    }
    try {
      return type.asSubclass(BlockCache.class).getConstructor(Configuration.class);
    } catch (NoSuchMethodException e) {
      throw fail(name, "has no public constructor taking a Configuration", e);
    }
  }

  private static SettingException fail(String name, String what, Throwable cause) {
    SettingException e = new SettingException(CacheSettings.BLOCKCACHE_CLASS.key(),
        "'" + name + "' " + what + "; expected " + CacheSettings.BLOCKCACHE_CLASS.range());
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }
}
