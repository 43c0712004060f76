/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bench.workload.Scenario;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OptionsTest {
  @Test
  void quick_isFiveScenariosOf64k() {
    Options o = Options.parse(new String[] {"--quick"});
    assertEquals(List.of("zipf-64k-1x", "zipf-64k-3x", "zipf-64k-9x", "scan-64k-3x",
        "hbase-64k-3x"), names(o.scenarios));
    assertEquals(Options.QUICK_OPS, o.ops);
  }

  @Test
  void full_isEveryPatternAt64kAndZipfMixed() {
    Options o = Options.parse(new String[0]);
    assertEquals(15, o.scenarios.size());
    assertTrue(names(o.scenarios).contains("zipf-mixed-9x"));
  }

  @Test
  void scenarios_glob_overridesThePreset() {
    Options o = Options.parse(new String[] {"--quick", "--scenarios", "*-mixed-9x,uniform-64k-2x"});
    assertEquals(List.of("uniform-mixed-9x", "zipf-mixed-9x", "scan-mixed-9x", "hbase-mixed-9x",
        "uniform-64k-2x"), names(o.scenarios));
  }

  @Test
  void unknownOption_failsWithUsage() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Options.parse(new String[] {"--fast"}));
    assertTrue(e.getMessage().contains("usage"));
  }

  private static List<String> names(List<Scenario> scenarios) {
    return scenarios.stream().map(Scenario::name).collect(Collectors.toList());
  }
}
