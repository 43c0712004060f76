/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/metrics.md true to {@link Metrics}, where each metric is defined: a row reads
 * {@code | `name` | kind | unit | meaning |}, with the registry's kind, unit and description
 * (exactly). Every failure prints the row as it should read, to paste.
 */
class MetricsDocsTest {
  private static final Path DOC = Paths.get("..", "docs", "metrics.md");
  private static final Map<String, String> ROWS = new LinkedHashMap<>();

  @BeforeAll
  static void readDoc() throws IOException {
    String text = new String(Files.readAllBytes(DOC), StandardCharsets.UTF_8);
    for (String line : text.split("\n")) {
      if (line.startsWith("| `") && line.split(" \\| ", -1).length == 4) {
        ROWS.put(line.substring(2, line.indexOf(" | ")), line);
      }
    }
  }

  static String row(Metric m) {
    return "| `" + m.template() + "` | " + m.kind().name().toLowerCase(Locale.ROOT) + " | "
        + m.unit() + " | " + m.description() + " |";
  }

  @Test
  void everyMetric_hasARowWithItsKindUnitAndMeaning() {
    List<String> problems = new ArrayList<>();
    for (Metric m : Metrics.all()) {
      String row = ROWS.get("`" + m.template() + "`");
      if (!row(m).equals(row)) {
        problems.add((row == null ? "no row for " : "row differs for ") + m.template()
            + "; it should read:\n" + row(m));
      }
    }
    assertEquals("", String.join("\n", problems), DOC + " drifted from Metrics");
  }

  @Test
  void everyRow_namesADefinedMetric() {
    List<String> unknown = new ArrayList<>();
    for (String name : ROWS.keySet()) {
      String template = name.substring(1, name.length() - 1);
      if (Metrics.all().stream().noneMatch(m -> m.template().equals(template))) {
        unknown.add(template);
      }
    }
    assertEquals(List.of(), unknown, DOC + " lists metrics Metrics does not define");
  }

  @Test
  void templates_matchTheirInstancesOnly() {
    assertEquals(Metrics.HITS, Metrics.of("l1_hitCount"));
    assertEquals(Metrics.TABLE_HITS, Metrics.of("table_default_t1_hitCount"));
    assertEquals(Metrics.CLASS_USED, Metrics.of("l2_class_33792_usedSlots"));
    assertEquals(null, Metrics.of("l3_hitCount"));
    assertEquals(null, Metrics.of("l2_class_big_usedSlots"));
    assertEquals("l2_class_5120_slabs", Metrics.CLASS_SLABS.fill("5120"));
  }
}
