/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bench.Main;
import io.tiercache.bench.workload.Scenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

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
    Options o = Options.parse();
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
    assertTrue(e.getMessage().contains("Unknown option: '--fast'"), e.getMessage());
    assertTrue(e.getMessage().contains("Usage: showdown"), e.getMessage());
  }

  @Test
  void badValues_failNamingTheOption() {
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Options.parse("--threads", "0")).getMessage().contains("--threads"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Options.parse("--capacity", "lots")).getMessage().contains("--capacity"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Options.parse("--miss-latency", "500")).getMessage().contains("--miss-latency"));
    for (String rounds : new String[] {"0", "10"}) {
      String message = assertThrows(IllegalArgumentException.class,
          () -> Options.parse("--rounds", rounds)).getMessage();
      assertTrue(message.contains("--rounds must be from 1 to 9, not " + rounds), message);
    }
    assertEquals(1, Options.parse().rounds);
    assertEquals(3, Options.parse("--rounds", "3").rounds);
  }

  @Test
  void everyOption_parsesAsBefore() {
    Options o = Options.parse("--full", "--quick", "--subjects", "tiercache-*", "--capacity",
        "40m", "--threads", "3", "--ops", "1000", "--warmup", "10", "--seed", "7", "--out", "o",
        "--data-dir", "d", "--cache-dir", "c", "--no-charts", "--list", "--footprint-blocks",
        "0");
    assertEquals("quick", o.preset, "the last preset named wins");
    assertEquals("tiercache-*", o.subjects);
    assertEquals(40L << 20, o.capacity);
    assertEquals(3, o.threads);
    assertEquals(1000, o.ops);
    assertEquals(10, o.warmupOps);
    assertEquals(7, o.seed);
    assertEquals(java.nio.file.Paths.get("o"), o.out);
    assertEquals(java.nio.file.Paths.get("d"), o.dataDir);
    assertEquals(java.nio.file.Paths.get("c"), o.cacheDir);
    assertTrue(!o.charts && o.list);
    assertEquals(0, o.footprintBlocks);
  }

  @Test
  void underTheJar_argumentsForTheReportAreTheShowdownsOwn() {
    CommandLine root = Main.commandLine();
    Options o = root.getSubcommands().get("showdown").getCommand();
    PrintStream console = System.out;
    System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    try {
      assertEquals(0, root.execute("showdown", "--list", "--quick"));
    } finally {
      System.setOut(console);
    }
    assertEquals("--list --quick", o.arguments);
  }

  @Test
  void missRegimes_presetDefaultsAndOverride() {
    assertEquals(List.of(0L), Options.parse("--quick").missLatencies);
    Options full = Options.parse("--full");
    assertEquals(List.of(0L, 500_000L), full.missLatencies);
    assertEquals(Options.LATENCY_OPS, full.opsFor(500_000));
    assertEquals(Options.FULL_OPS, full.opsFor(0));
    Options o = Options.parse("--quick", "--miss-latency", "0,2ms", "--miss-latency-ops", "50");
    assertEquals(List.of(0L, 2_000_000L), o.missLatencies);
    assertEquals(50, o.opsFor(2_000_000));
    assertEquals(Options.QUICK_OPS, o.opsFor(0));
  }

  private static List<String> names(List<Scenario> scenarios) {
    return scenarios.stream().map(Scenario::name).collect(Collectors.toList());
  }
}
