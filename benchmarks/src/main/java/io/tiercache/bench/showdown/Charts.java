/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * PNG charts of the results, one per scenario family ({@code zipf-64k}, ...), miss regime and
 * metric: {@code p99-<family>.png}, {@code hit-<family>.png} and {@code ops-<family>.png} for
 * page-cache misses, with {@code -miss500us} (the regime) before {@code .png} for the others.
 *
 * <p>Reading aids: the x axis is the database:cache ratio as categories {@code 1x, 3x, 9x}
 * spaced evenly (a log scale for the presets' powers of three); every subject keeps one colour
 * of its own in every chart (TierCache's drawn thicker); the y axis turns logarithmic when the
 * values span more than a decade; tick labels are human numbers ({@code 3M}, {@code 250k} on a
 * linear axis, {@code 1,000,000} at a log axis's decades); the
 * hit-ratio chart draws Bélády's OPT as a dashed black line; the title names the run's preset,
 * capacity, threads, operations, JDK and commit.
 */
final class Charts {
  /**
   * One colour per subject, distinct at a glance: TierCache's in saturated hues, HBase's in
   * darker or greyer ones. A 16th subject and beyond get generated hues.
   */
  private static final Color[] PALETTE = {
      new Color(0xE6194B), new Color(0x3CB44B), new Color(0x4363D8), new Color(0xF58231),
      new Color(0x911EB4), new Color(0x42D4F4), new Color(0xF032E6), new Color(0x9A6324),
      new Color(0x808000), new Color(0x469990), new Color(0x000075), new Color(0x800000),
      new Color(0xAAAA00), new Color(0x808080), new Color(0xDCBEFF)};

  private Charts() {}

  /**
   * Writes the charts into {@code dir} and returns their paths; {@code context} (preset,
   * capacity, threads, ...) goes in every title.
   */
  static List<Path> write(List<Result> results, Path dir, String context) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Files.createDirectories(dir);
    Map<String, Color> colours = colours(results);
    Set<String> groups = new LinkedHashSet<>();
    results.forEach(r -> groups.add(r.scenario.family() + "|" + r.missLatencyNanos));
    List<Path> written = new ArrayList<>();
    for (String group : groups) {
      String family = group.substring(0, group.indexOf('|'));
      long regime = Long.parseLong(group.substring(group.indexOf('|') + 1));
      List<Result> rows = new ArrayList<>();
      for (Result r : results) {
        if (!r.failed() && r.scenario.family().equals(family) && r.missLatencyNanos == regime) {
          rows.add(r);
        }
      }
      String suffix = regime == 0 ? "" : "-" + Result.regime(regime).replace("+", "");
      String what = family + ", " + Result.regime(regime) + " misses";
      written.add(chart(rows, dir.resolve("p99-" + family + suffix + ".png"),
          "p99 latency, " + what, "p99 latency per operation (us)", r -> r.p99 / 1000.0, colours,
          context, false));
      written.add(chart(rows, dir.resolve("hit-" + family + suffix + ".png"),
          "hit ratio, " + what, "hit ratio (%)", r -> 100 * r.hitRatio, colours, context, true));
      written.add(chart(rows, dir.resolve("ops-" + family + suffix + ".png"),
          "throughput, " + what, "throughput (ops/s)", Result::opsPerSecond, colours, context,
          false));
    }
    return written;
  }

  /** Subjects in order of first appearance, each with its own colour. */
  static Map<String, Color> colours(List<Result> results) {
    Map<String, Color> colours = new LinkedHashMap<>();
    for (Result r : results) {
      if (!colours.containsKey(r.subject)) {
        int i = colours.size();
        colours.put(r.subject, i < PALETTE.length ? PALETTE[i]
            : Color.getHSBColor((i * 0.618034f) % 1f, 0.8f, 0.75f));
      }
    }
    return colours;
  }

  private static Path chart(List<Result> rows, Path file, String title, String yTitle,
      ToDoubleFunction<Result> value, Map<String, Color> colours, String context, boolean opt)
      throws IOException {
    TreeSet<Integer> ratioSet = new TreeSet<>();
    rows.forEach(r -> ratioSet.add(r.scenario.ratio()));
    List<Integer> ratios = new ArrayList<>(ratioSet);
    Map<String, List<double[]>> bySubject = new LinkedHashMap<>();
    Map<Integer, Double> optByRatio = new LinkedHashMap<>();
    double min = Double.POSITIVE_INFINITY;
    double max = 0;
    for (Result r : rows) {
      double v = value.applyAsDouble(r);
      if (Double.isNaN(v) || v <= 0) {
        continue;
      }
      min = Math.min(min, v);
      max = Math.max(max, v);
      bySubject.computeIfAbsent(r.subject, k -> new ArrayList<>())
          .add(new double[] {ratios.indexOf(r.scenario.ratio()), v});
      if (opt && !Double.isNaN(r.optHitRatio)) {
        optByRatio.put(r.scenario.ratio(), 100 * r.optHitRatio);
      }
    }
    if (bySubject.isEmpty()) {
      return file;
    }
    boolean log = max / min > 10;
    XYChart chart = new XYChartBuilder().width(1100).height(600)
        .title(title + "  |  " + context)
        .xAxisTitle("database:cache ratio").yAxisTitle(yTitle + (log ? ", log scale" : ""))
        .build();
    XYStyler s = chart.getStyler();
    s.setLegendPosition(Styler.LegendPosition.OutsideE);
    s.setChartTitleFont(s.getChartTitleFont().deriveFont(13f));
    s.setMarkerSize(8);
    chart.setCustomXAxisTickLabelsFormatter(x -> {
      long i = Math.round(x);
      return Math.abs(x - i) < 1e-6 && i >= 0 && i < ratios.size() ? ratios.get((int) i) + "x"
          : "";
    });
    if (log) {
      // XChart's custom tick formatters draw a linear axis: a log axis keeps its own decade
      // ticks, written with digit grouping (1,000,000) rather than exponents.
      s.setYAxisLogarithmic(true);
      s.setYAxisLogarithmicDecadeOnly(true);
      s.setYAxisDecimalPattern("#,##0.##");
    } else {
      chart.setCustomYAxisTickLabelsFormatter(Charts::human);
    }
    for (Map.Entry<String, List<double[]>> e : bySubject.entrySet()) {
      List<double[]> points = e.getValue();
      points.sort((a, b) -> Double.compare(a[0], b[0]));
      XYSeries series = chart.addSeries(e.getKey(), points.stream().mapToDouble(p -> p[0])
          .toArray(), points.stream().mapToDouble(p -> p[1]).toArray());
      series.setMarker(SeriesMarkers.CIRCLE);
      series.setLineColor(colours.get(e.getKey()));
      series.setMarkerColor(colours.get(e.getKey()));
      series.setLineWidth(e.getKey().startsWith("tiercache") ? 3.5f : 1.5f);
    }
    if (!optByRatio.isEmpty()) {
      double[] x = optByRatio.keySet().stream().mapToDouble(ratios::indexOf).toArray();
      double[] y = optByRatio.values().stream().mapToDouble(Double::doubleValue).toArray();
      XYSeries series = chart.addSeries("opt (Belady)", x, y);
      series.setMarker(SeriesMarkers.DIAMOND);
      series.setLineColor(Color.BLACK);
      series.setMarkerColor(Color.BLACK);
      series.setLineStyle(new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f,
          new float[] {8f, 6f}, 0f));
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  /** {@code 3M}, {@code 250k}, {@code 12.5}, {@code 0.8}: no exponent notation. */
  static String human(double v) {
    double a = Math.abs(v);
    if (a >= 1e9) {
      return trim(v / 1e9) + "G";
    }
    if (a >= 1e6) {
      return trim(v / 1e6) + "M";
    }
    if (a >= 1e4) {
      return trim(v / 1e3) + "k";
    }
    if (a >= 100 || a == 0) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 1) {
      return trim(v);
    }
    return String.format(Locale.ROOT, "%.2g", v);
  }

  private static String trim(double v) {
    String t = String.format(Locale.ROOT, "%.1f", v);
    return t.endsWith(".0") ? t.substring(0, t.length() - 2) : t;
  }
}
