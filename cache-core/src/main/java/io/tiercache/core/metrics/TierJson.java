/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import java.io.IOException;
import java.util.Map;
import org.apache.hbase.thirdparty.com.google.gson.TypeAdapter;
import org.apache.hbase.thirdparty.com.google.gson.stream.JsonReader;
import org.apache.hbase.thirdparty.com.google.gson.stream.JsonWriter;

/**
 * How a tier looks in the RegionServer web UI's JSON view ({@code /rs-status?format=json&bcn=L1}
 * or {@code L2}): a snapshot of the tier's metrics instead of its fields.
 *
 * <p>HBase 2.6.4 writes that view with {@code BlockCacheUtil.toJSON(BlockCache)}, a Gson
 * (HBase's relocated copy) that skips private fields ({@code excludeFieldsWithModifiers(PRIVATE)},
 * which also lets static and transient fields through). Every field of TierCache's tiers is
 * private, so they came out as {@code {}}; HBase's own {@code LruBlockCache} shows its
 * package-private constants only, and its {@code BucketCache} its package-private fields, the
 * block map among them (the whole cache). A tier class names a subclass of this adapter with
 * Gson's {@code @JsonAdapter}, which Gson consults before reflection: the view then shows the
 * implementation, what {@link #describe} adds (the L2's engine) and every metric of
 * {@code docs/metrics.md} of that tier, with the tier prefix dropped ({@code hitCount},
 * {@code size}, {@code maxSize}, {@code blockCount}, ...), read through {@link TierMetrics}: no
 * walk over the cached blocks.
 *
 * <p>Gson makes the adapter by reflection (a public no-argument constructor) on the web UI's
 * thread; {@link #write} may allocate. Reading JSON back is not supported.
 */
public abstract class TierJson<T> extends TypeAdapter<T> {
  /** The tier's metrics, e.g. {@code new LruTierMetrics(tier)}. */
  protected abstract TierMetrics metricsOf(T tier);

  /** Fixed text written before the metrics, e.g. the L2's engine; empty by default. */
  protected Map<String, String> describe(T tier) {
    return Map.of();
  }

  @Override
  public void write(JsonWriter out, T tier) throws IOException {
    if (tier == null) {
      out.nullValue();
      return;
    }
    out.beginObject();
    out.name("implementation").value(tier.getClass().getSimpleName());
    for (Map.Entry<String, String> e : describe(tier).entrySet()) {
      out.name(e.getKey()).value(e.getValue());
    }
    TierMetrics metrics = metricsOf(tier);
    MetricsOut.Recorder r = new MetricsOut.Recorder();
    metrics.snapshot(r);
    String prefix = metrics.prefix() + "_";
    for (Map.Entry<String, Number> e : r.values().entrySet()) {
      String name = e.getKey().startsWith(prefix) ? e.getKey().substring(prefix.length())
          : e.getKey();
      Number v = e.getValue();
      if (v instanceof Double) {
        double d = v.doubleValue();
        if (Double.isFinite(d)) {
          out.name(name).value(d);
        }
      } else {
        out.name(name).value(v.longValue());
      }
    }
    out.endObject();
  }

  @Override
  public T read(JsonReader in) {
    throw new UnsupportedOperationException("a tier is written to JSON, never read from it");
  }
}
