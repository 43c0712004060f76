/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.subject;

import static io.tiercache.bench.subject.Subject.Vendor.TIERCACHE;

import io.tiercache.bucket.BucketTier;
import io.tiercache.combined.TieredBlockCache;
import io.tiercache.lru.LruTier;
import java.util.Arrays;

/**
 * TierCache's tiers as subjects. Each tier has a public {@code Configuration} constructor, so a
 * new tier or engine is one {@code add} line here, configured through
 * {@link CacheSpec#conf(String...)} (which already sets the L1 size, the L2 size in MB and the
 * block-size hint to the spec's), e.g.
 * <pre>
 * s.add("tiercache", TIERCACHE, "TierCache L1 + L2 (offheap)", "hbase-combined",
 *     spec -&gt; new TieredBlockCache(spec.conf("hbase.bucketcache.ioengine", "offheap")));
 * </pre>
 * The fourth argument names the HBase cache it is compared with like for like in the report.
 * A new subject also goes into the {@code @Param} list of {@code SubjectBenchmark}; a smoke test
 * checks they agree.
 */
public final class TierCacheSubjects {
  private TierCacheSubjects() {}

  static void registerAll(Subjects s) {
    s.add("tiercache-l1", TIERCACHE, "TierCache L1: LruTier (on heap, W-TinyLFU)", "hbase-lru",
        spec -> new LruTier(overrides(spec, L1_OVERRIDES).conf()));
    s.add("tiercache-l2-offheap", TIERCACHE, "TierCache L2: BucketTier, offheap engine",
        "hbase-bucket-offheap",
        spec -> new BucketTier(l2(spec).conf("hbase.bucketcache.ioengine", "offheap")));
    s.add("tiercache-l2-file", TIERCACHE, "TierCache L2: BucketTier, file engine (tmpfs)",
        "hbase-bucket-file",
        spec -> new BucketTier(l2(spec).conf("hbase.bucketcache.ioengine",
            "file:" + spec.file("tier.cache"))));
    s.add("tiercache-l2-mmap", TIERCACHE, "TierCache L2: BucketTier, mmap engine (tmpfs)",
        "hbase-bucket-mmap",
        spec -> new BucketTier(l2(spec).conf("hbase.bucketcache.ioengine",
            "mmap:" + spec.file("tier.mmap"))));
    s.add("tiercache-l2-pmem", TIERCACHE, "TierCache L2: BucketTier, pmem engine, dax back end (tmpfs)",
        "hbase-bucket-pmem",
        spec -> new BucketTier(l2(spec).conf("hbase.bucketcache.ioengine",
            "pmem:" + spec.file("tier.pmem"))));
    s.add("tiercache", TIERCACHE,
        "TierCache combined: TieredBlockCache, LruTier L1 + offheap BucketTier L2 (the default, "
            + "hot mode, move promotion)",
        "hbase-combined", spec -> combined(spec, "hot"));
    s.add("tiercache-move-on-hit", TIERCACHE,
        "TierCache combined, hot mode with move-on-hit promotion (the default before "
            + "2026-11-28): a promoted data block's L2 copy is freed at its first L1 hit",
        "hbase-combined", spec -> combined(spec, "hot", "tiercache.combined.hot.promotion",
            "move-on-hit"));
    s.add("tiercache-copy", TIERCACHE,
        "TierCache combined, hot mode with copy promotion (the default before the issue-11 L2 "
            + "hit work): a promoted data block keeps its L2 copy, L1 data victims are dropped",
        "hbase-combined", spec -> combined(spec, "hot", "tiercache.combined.hot.promotion",
            "copy"));
    s.add("tiercache-hbase", TIERCACHE,
        "TierCache combined, hbase mode: HBase's placement (index/bloom in the L1, data in the L2)",
        "hbase-combined", spec -> combined(spec, "hbase"));
    s.add("tiercache-exclusive", TIERCACHE,
        "TierCache combined, exclusive mode: L1 victims move to the L2, repeated L2 hits move up",
        "hbase-combined", spec -> combined(spec, "exclusive"));
  }

  /**
   * The L2 settings a run may override for every TierCache subject by a system property of the
   * same name: {@code -Dtiercache.l2.admission=all} runs the L2s as before admission existed (the
   * insert benchmark's {@code admission} parameter sets it), {@code
   * -Dtiercache.l2.write.mode=queued} with HBase's write-behind instead of inline writes, {@code
   * -Dtiercache.l2.protected.percent=0} with one plain CLOCK per size class, {@code
   * -Dtiercache.bucket.slab.size} and {@code -Dhbase.bucketcache.bucket.sizes} with other slabs
   * and size classes.
   */
  static final String[] L2_OVERRIDES = {"tiercache.l2.admission", "tiercache.l2.write.mode",
      "tiercache.l2.protected.percent", "tiercache.bucket.slab.size",
      "hbase.bucketcache.bucket.sizes"};

  /**
   * The L1 settings a run may override for {@code tiercache-l1} by a system property of the same
   * name: HBase's {@code LruBlockCache} shares, which also size the L1's W-TinyLFU segments.
   */
  static final String[] L1_OVERRIDES = {"hbase.lru.blockcache.single.percentage",
      "hbase.lru.blockcache.multi.percentage", "hbase.lru.blockcache.memory.percentage"};

  /** The spec with the {@link #L2_OVERRIDES} that are set as system properties. */
  private static CacheSpec l2(CacheSpec spec) {
    return overrides(spec, L2_OVERRIDES);
  }

  /** The spec with those of {@code keys} that are set as system properties. */
  private static CacheSpec overrides(CacheSpec spec, String[] keys) {
    CacheSpec s = spec;
    for (String key : keys) {
      String value = System.getProperty(key);
      if (value != null) {
        s = s.with(key, value);
      }
    }
    return s;
  }

  /** Split like {@code hbase-combined}: a tenth of the capacity for the L1, the rest for the L2. */
  private static TieredBlockCache combined(CacheSpec spec, String mode, String... more) {
    long l1 = (long) (spec.capacity() * HBaseSubjects.COMBINED_L1_SHARE);
    String[] kv = {"tiercache.combined.mode", mode,
        "hfile.block.cache.memory.size", Long.toString(l1),
        "hbase.bucketcache.ioengine", "offheap",
        "hbase.bucketcache.size", ((spec.capacity() - l1) >> 10) + "k"};
    String[] all = Arrays.copyOf(kv, kv.length + more.length);
    System.arraycopy(more, 0, all, kv.length, more.length);
    return new TieredBlockCache(l2(spec).conf(all));
  }
}
