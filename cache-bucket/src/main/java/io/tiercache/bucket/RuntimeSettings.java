/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.admit.Admission;
import io.tiercache.bucket.alloc.SlabAllocator;
import io.tiercache.core.config.CacheSettings;
import io.tiercache.core.config.SettingException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L2's settings that change at run time ({@link BucketConfig#RUNTIME}), applied by
 * {@link BucketTier#onConfigurationChange}: the checkpoint interval, the I/O-error tolerance, the
 * admission mode, the write mode and the hits' weight in slab moves. The rest
 * ({@link BucketConfig#START_ONLY}) is logged as taking effect at restart.
 *
 * <p>Thread safe: {@link #apply} is synchronized (HBase calls it from one thread anyway); the
 * parts it sets are thread safe.
 */
final class RuntimeSettings {
  private static final Logger LOG = LoggerFactory.getLogger(BucketTier.class);

  private final String name;
  private final FaultTracker faults;
  private final Admission admission;
  private final TierPersistence persistence;
  private final Inserts inserts;
  private final SlabAllocator slabs;
  /** The configuration the current settings were read from (empty for a tier built in code). */
  private Configuration applied = new Configuration(false);

  RuntimeSettings(String name, FaultTracker faults, Admission admission,
      TierPersistence persistence, Inserts inserts, SlabAllocator slabs) {
    this.name = name;
    this.slabs = slabs;
    this.inserts = inserts;
    this.faults = faults;
    this.admission = admission;
    this.persistence = persistence;
  }

  /** Records the configuration the tier started with. */
  synchronized void started(Configuration conf) {
    applied = new Configuration(conf);
  }

  /** See {@link BucketTier#onConfigurationChange}; throws only what it does not expect. */
  synchronized void apply(Configuration conf) {
    int interval;
    int tolerated;
    String admissionMode;
    String writeMode;
    int hitPercent;
    int protectedPercent;
    try {
      interval = CacheSettings.L2_PERSIST_INTERVAL_MS.get(conf);
      tolerated = CacheSettings.L2_ERRORS_TOLERATED_MS.get(conf);
      admissionMode = CacheSettings.L2_ADMISSION.get(conf);
      writeMode = CacheSettings.L2_WRITE_MODE.get(conf);
      hitPercent = CacheSettings.L2_REBALANCE_HIT_PERCENT.get(conf);
      protectedPercent = CacheSettings.L2_PROTECTED_PERCENT.get(conf);
    } catch (SettingException e) {
      LOG.error("{}: configuration change rejected, the current settings stay: {}", name,
          e.getMessage());
      return;
    }
    Configuration before = applied;
    for (String restart : CacheSettings.changes(before, conf, BucketConfig.START_ONLY)) {
      LOG.warn("{}: {} takes effect at restart", name, restart);
    }
    List<String> changed = CacheSettings.changes(before, conf, BucketConfig.RUNTIME);
    faults.setToleratedMs(tolerated);
    admission.setMode(admissionMode);
    inserts.setWriteMode(writeMode);
    slabs.setHitPercent(hitPercent);
    slabs.setProtectedPercent(protectedPercent);
    persistence.setInterval(interval);
    applied = new Configuration(conf);
    if (!changed.isEmpty()) {
      LOG.info("{}: configuration changed: {}", name, String.join("; ", changed));
    }
  }
}
