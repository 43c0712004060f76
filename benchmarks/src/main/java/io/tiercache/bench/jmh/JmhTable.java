/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * JMH results pivoted as docs/benchmarks.md shows them: one row per subject, one column per
 * benchmark method (with its unit), each cell {@code score ± error} where the error is JMH's
 * 99.9 % confidence interval half-width ({@code -} when JMH could not compute one, e.g. from a
 * single sample).
 *
 * <p>Concurrency: stateless.
 */
final class JmhTable {
  /** One benchmark method's result for one subject. */
  static final class Row {
    final String benchmark;
    final String subject;
    final double score;
    final double error;
    final String unit;
    final long samples;

    Row(String benchmark, String subject, double score, double error, String unit, long samples) {
      this.benchmark = benchmark;
      this.subject = subject;
      this.score = score;
      this.error = error;
      this.unit = unit;
      this.samples = samples;
    }
  }

  private JmhTable() {}

  /** A Markdown table: subjects down, benchmarks across, {@code score ± error} in each cell. */
  static String markdown(List<Row> rows) {
    Set<String> subjects = new LinkedHashSet<>();
    Map<String, String> units = new LinkedHashMap<>();
    Map<String, Row> cells = new LinkedHashMap<>();
    for (Row r : rows) {
      subjects.add(r.subject);
      units.putIfAbsent(r.benchmark, r.unit);
      cells.put(r.subject + "\u0000" + r.benchmark, r);
    }
    List<String> benchmarks = new ArrayList<>(units.keySet());
    StringBuilder s = new StringBuilder("| subject |");
    for (String b : benchmarks) {
      s.append(' ').append(b).append(" (").append(units.get(b)).append(") |");
    }
    s.append("\n|---|");
    benchmarks.forEach(b -> s.append("---:|"));
    s.append('\n');
    for (String subject : subjects) {
      s.append("| `").append(subject).append("` |");
      for (String b : benchmarks) {
        Row r = cells.get(subject + "\u0000" + b);
        s.append(' ').append(r == null ? "" : cell(r)).append(" |");
      }
      s.append('\n');
    }
    return s.toString();
  }

  /** {@code 24.44 ± 1.20}; the error is {@code -} when it is not a number. */
  static String cell(Row r) {
    String score = number(r.score);
    return Double.isNaN(r.error) || Double.isInfinite(r.error) ? score + " ± -"
        : score + " ± " + number(r.error);
  }

  /** Three significant digits at most, two decimals at most, no exponent. */
  private static String number(double v) {
    double a = Math.abs(v);
    return String.format(Locale.ROOT, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
  }
}
