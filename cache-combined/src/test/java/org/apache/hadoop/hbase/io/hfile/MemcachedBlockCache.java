/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package org.apache.hadoop.hbase.io.hfile;

/**
 * Stands in, on the test classpath only, for the class of the same name in HBase's
 * {@code hbase-external-blockcache} module, which this build's registry does not carry.
 *
 * <p>HBase 2.6's {@code BlockCacheFactory.createExternalBlockcache} evaluates
 * {@code Class.forName("org.apache.hadoop.hbase.io.hfile.MemcachedBlockCache")} as the default
 * argument of {@code conf.getClass(hbase.blockcache.external.class, ...)}, even when that key names
 * another class, and silently returns no L2 when the lookup fails. On a RegionServer the class
 * comes from HBase's own {@code lib/hbase-external-blockcache-*.jar}; here this empty class lets the
 * route run. It is never instantiated: the configured class ({@code ExternalL2Cache}) is.
 */
public final class MemcachedBlockCache {
  private MemcachedBlockCache() {}
}
