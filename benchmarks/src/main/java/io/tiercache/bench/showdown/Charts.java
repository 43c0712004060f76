/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * PNG charts of the results, one per scenario family ({@code zipf-64k}, ...) and metric, with the
 * database:cache ratio on the x axis and one line per subject: {@code p99-<family>.png} (log
 * scale), {@code hit-<family>.png} and {@code ops-<family>.png}.
 */
final class Charts {
  private Charts() {}

  /** Writes the charts into {@code dir} and returns their paths. */
  static List<Path> write(List<Result> results, Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Files.createDirectories(dir);
    Set<String> families = new LinkedHashSet<>();
    results.forEach(r -> families.add(r.scenario.family()));
    List<Path> written = new ArrayList<>();
    for (String family : families) {
      written.add(chart(results, family, dir, "p99", "p99 latency (us, log)",
          r -> r.p99 / 1000.0, true));
      written.add(chart(results, family, dir, "hit", "hit ratio (%)", r -> 100 * r.hitRatio, false));
      written.add(chart(results, family, dir, "ops", "throughput (ops/s)", Result::opsPerSecond,
          false));
    }
    return written;
  }

  private static Path chart(List<Result> results, String family, Path dir, String metric,
      String yTitle, ToDoubleFunction<Result> value, boolean log) throws IOException {
    XYChart chart = new XYChartBuilder().width(900).height(540)
        .title(metric + " by database:cache ratio, " + family)
        .xAxisTitle("database:cache ratio").yAxisTitle(yTitle).build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setYAxisLogarithmic(log);
    chart.getStyler().setYAxisLogarithmicDecadeOnly(false);
    chart.getStyler().setXAxisDecimalPattern("0");
    chart.getStyler().setMarkerSize(7);
    Map<String, List<double[]>> bySubject = new LinkedHashMap<>();
    for (Result r : results) {
      if (r.failed() || !r.scenario.family().equals(family)) {
        continue;
      }
      double v = value.applyAsDouble(r);
      if (Double.isNaN(v) || (log && v <= 0)) {
        continue;
      }
      bySubject.computeIfAbsent(r.subject, k -> new ArrayList<>())
          .add(new double[] {r.scenario.ratio(), v});
    }
    for (Map.Entry<String, List<double[]>> e : bySubject.entrySet()) {
      List<double[]> points = e.getValue();
      points.sort((a, b) -> Double.compare(a[0], b[0]));
      double[] x = points.stream().mapToDouble(p -> p[0]).toArray();
      double[] y = points.stream().mapToDouble(p -> p[1]).toArray();
      XYSeries series = chart.addSeries(e.getKey(), x, y);
      series.setMarker(SeriesMarkers.CIRCLE);
      if (e.getKey().startsWith("tiercache")) {
        series.setLineWidth(3.5f);
      }
    }
    Path file = dir.resolve(metric + "-" + family + ".png");
    if (!bySubject.isEmpty()) {
      BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
    return file;
  }
}
