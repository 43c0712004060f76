/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import io.tiercache.bucket.alloc.Occupancy;
import io.tiercache.bucket.engine.ReadTimer;
import io.tiercache.core.metrics.Metrics;
import io.tiercache.core.metrics.MetricsOut;
import io.tiercache.core.metrics.TierJson;
import io.tiercache.core.metrics.TierMetrics;
import java.util.Map;

/**
 * The L2's metrics ({@code l2_*} in {@code docs/metrics.md}): every tier's, plus occupancy and
 * waste per size class, the write queue, drops, checksum failures, I/O errors and the disabled
 * state, the engine's read timer ({@code file:}, {@code files:}), checkpoints and the restore.
 * A snapshot takes the allocator's lock once (for the occupancy, as
 * {@link BucketTier#occupancy()} does); nothing here runs on the hot path.
 */
public final class BucketTierMetrics implements TierMetrics {
  private final BucketTier tier;

  public BucketTierMetrics(BucketTier tier) {
    this.tier = tier;
  }

  @Override
  public String prefix() {
    return "l2";
  }

  @Override
  public void snapshot(MetricsOut out) {
    TierMetrics.common(tier, "l2", out);
    out.add(Metrics.UNEXPECTED, tier.unexpectedFailures(), "l2");
    Occupancy o = tier.occupancy();
    out.add(Metrics.SLABS, o.totalSlabs());
    out.add(Metrics.FREE_SLABS, o.freeSlabs());
    out.add(Metrics.ADMISSION_LENIENCY, tier.admission().leniency());
    out.add(Metrics.ADMISSION_LENIENCY_REREAD, tier.admission().rereadLeniency());
    out.add(Metrics.ADMISSION_MARGIN, tier.admission().margin());
    out.add(Metrics.UTILISATION, o.utilisation());
    long held = (long) (o.totalSlabs() - o.freeSlabs()) * o.slabSize();
    out.add(Metrics.WASTE, Math.max(0, held - tier.getCurrentSize()));
    out.add(Metrics.QUEUE_DEPTH, tier.writeBehind.queued());
    out.add(Metrics.QUEUE_DROPS, tier.fullQueueDrops());
    out.add(Metrics.CHECKSUM_FAILURES, tier.checksumFailures());
    out.add(Metrics.IO_ERRORS, tier.ioErrors());
    ReadTimer timer = tier.engineReadTimer();
    long reads = timer == null ? 0 : timer.reads();
    long micros = timer == null ? 0 : timer.nanos() / 1000;
    out.add(Metrics.ENGINE_READS, reads);
    out.add(Metrics.ENGINE_READ_TIME, micros);
    out.add(Metrics.ENGINE_TIME_PER_READ, timer == null ? -1.0
        : reads == 0 ? 0.0 : timer.nanos() / 1000.0 / reads);
    out.add(Metrics.DISABLED, tier.isDisabled() ? 1 : 0);
    out.add(Metrics.COLD_FILE_EVICTIONS, tier.coldFileEvictions());
    long[] checkpoint = tier.persistence.checkpointStatus();
    out.add(Metrics.CHECKPOINT_AGE, checkpoint[0]);
    out.add(Metrics.CHECKPOINT_DURATION, checkpoint[1]);
    out.add(Metrics.CHECKPOINT_BYTES, checkpoint[2]);
    out.add(Metrics.CHECKPOINT_FAILURES, checkpoint[3]);
    long[] writes = tier.persistWrites();
    out.add(Metrics.PERSIST_BYTES, writes[0]);
    out.add(Metrics.CHECKPOINTS, writes[1]);
    out.add(Metrics.EVICTION_WORK, tier.evictionSlotsExamined());
    out.add(Metrics.RESTORING, tier.isRestored() ? 0 : 1);
    out.add(Metrics.RESTORE_DURATION, tier.restore.elapsedMs());
    out.add(Metrics.RESTORE_DROPS, tier.insertsDroppedWhileRestoring());
    for (int c = 0; c < o.classCount(); c++) {
      if (o.slabs(c) == 0) {
        continue; // a class holding no slab has nothing to show (19 by default)
      }
      String size = Integer.toString(o.classSize(c));
      out.add(Metrics.CLASS_SLABS, o.slabs(c), size);
      out.add(Metrics.CLASS_USED, o.usedSlots(c), size);
      out.add(Metrics.CLASS_FREE, o.slots(c) - o.usedSlots(c), size);
      out.add(Metrics.CLASS_PROTECTED, o.protectedSlots(c), size);
    }
  }

  /** Occupancy and fragmentation per size class, as BucketCache's stats line adds them. */
  @Override
  public String detail() {
    return tier.engineDescription() + "; " + tier.occupancy();
  }

  /**
   * The L2 in the web UI's JSON view ({@link TierJson}): its engine and its metrics. Named by
   * {@code @JsonAdapter} on {@link BucketTier}.
   */
  public static final class Json extends TierJson<BucketTier> {
    @Override
    protected TierMetrics metricsOf(BucketTier tier) {
      return new BucketTierMetrics(tier);
    }

    @Override
    protected Map<String, String> describe(BucketTier tier) {
      return Map.of("engine", tier.engineDescription());
    }
  }
}
