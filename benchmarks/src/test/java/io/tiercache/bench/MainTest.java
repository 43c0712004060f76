/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Every command answers {@code --help} with each of its options and their defaults. */
class MainTest {
  private static final Map<String, List<String>> OPTIONS = Map.of(
      "showdown", List.of("--quick", "--full", "--subjects", "--scenarios", "--capacity",
          "--threads", "--ops", "--warmup", "--seed", "--out", "--data-dir", "--cache-dir",
          "--no-charts", "--list", "--footprint-blocks", "--miss-latency", "--miss-latency-ops",
          "Default: 256m"),
      "footprint", List.of("--blocks", "--subjects", "--scratch", "Default: 100000"),
      "restart", List.of("--blocks", "--payload", "--scratch", "--subjects", "Default: 4096"),
      "real-hbase", List.of("--quick", "--cache-mb", "--ratios", "--gets", "--subjects", "--out",
          "--rounds", "Default: 40"),
      "scale", List.of("--blocks", "--subjects", "--dir", "--pmem-dir", "--pmem-max-blocks",
          "--hbase-max-blocks", "--out", "--churn-rate", "--churn-seconds", "--reads",
          "--kill-sync-ms", "--no-kill", "--child-heap", "--seed", "Default: 1m,4m"),
      "jmh", List.of("--help", "JMH-ARGS", "3 forks"),
      "subjects", List.of("--help"));

  @ParameterizedTest
  @ValueSource(strings = {"showdown", "footprint", "restart", "real-hbase", "scale", "jmh",
      "subjects"})
  void help_everyCommand_listsItsOptions(String command) {
    StringWriter out = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    PrintStream stderr = System.err;
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
    try {
      assertEquals(0, cli.execute(command, "--help"));
      // Help of the root lists every command's description, so a bad format in one shows here.
      assertEquals(0, Main.commandLine().execute("--help"));
    } finally {
      System.setErr(stderr);
    }
    assertEquals("", warnings.toString(StandardCharsets.UTF_8), "picocli's warnings");
    for (String expected : OPTIONS.get(command)) {
      assertTrue(out.toString().contains(expected), command + " --help lacks " + expected + ":\n"
          + out);
    }
  }

  @Test
  void noCommand_orHelp_listsTheCommands() {
    StringWriter out = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    assertEquals(0, cli.execute("--help"));
    for (String c : OPTIONS.keySet()) {
      assertTrue(out.toString().contains(c), c + " missing:\n" + out);
    }
  }

  @Test
  void unknownOption_exitsWith2() {
    CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(new StringWriter()));
    assertEquals(2, cli.execute("footprint", "--bloks", "3"));
    assertEquals(2, cli.execute("nonsense"));
  }

  @Test
  void realHBase_roundsBelowOne_isRefusedByName_beforeAnyRun() {
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(err));
    assertEquals(2, cli.execute("real-hbase", "--rounds", "0"));
    assertTrue(err.toString().contains("--rounds is 0; expected at least 1"), err.toString());
  }
}
