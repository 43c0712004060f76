/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.lib.Interns;

/**
 * Where a snapshot of metrics goes: a metrics2 record (JMX, sinks) or a map (the periodic stats
 * line, tests). Only {@link Metrics}' definitions can be written, so every name published is one
 * {@code docs/metrics.md} lists. Used on snapshot threads only, never on the cache's hot path.
 */
public abstract class MetricsOut {
  /** Writes one value named {@code name}, an instance of {@code metric}. */
  protected abstract void put(Metric metric, String name, Number value);

  /** Writes {@code metric} with its placeholders filled by {@code fill}, in order. */
  public final void add(Metric metric, long value, String... fill) {
    put(metric, metric.fill(fill), value);
  }

  /** Writes a ratio or other fractional gauge. */
  public final void add(Metric metric, double value, String... fill) {
    put(metric, metric.fill(fill), value);
  }

  /** A snapshot into a metrics2 record. */
  public static MetricsOut to(MetricsRecordBuilder record) {
    return new MetricsOut() {
      @Override
      protected void put(Metric metric, String name, Number value) {
        if (metric.kind() == Metric.Kind.COUNTER) {
          record.addCounter(Interns.info(name, metric.description()), value.longValue());
        } else if (value instanceof Double) {
          record.addGauge(Interns.info(name, metric.description()), value.doubleValue());
        } else {
          record.addGauge(Interns.info(name, metric.description()), value.longValue());
        }
      }
    };
  }

  /** A snapshot into a map, by name, in the order written. */
  public static final class Recorder extends MetricsOut {
    private final Map<String, Number> values = new LinkedHashMap<>();
    private final Map<String, Metric> metrics = new LinkedHashMap<>();

    @Override
    protected void put(Metric metric, String name, Number value) {
      values.put(name, value);
      metrics.put(name, metric);
    }

    /** The values written, by name. */
    public Map<String, Number> values() {
      return values;
    }

    /** The definition each written name is an instance of. */
    public Metric metricOf(String name) {
      return metrics.get(name);
    }
  }
}
