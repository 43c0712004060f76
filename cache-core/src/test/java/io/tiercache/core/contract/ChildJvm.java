/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.contract;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A child JVM for crash tests: runs a test class's {@code main} on the test class path with the
 * module flags this JVM has (HBase needs them on JDK 17), reads the lines it prints, and kills it
 * with SIGKILL ({@link Process#destroyForcibly()} on Linux) when the test says so. Used by the
 * SIGKILL tests of every persistent L2 engine.
 */
public final class ChildJvm {
  private final Process process;
  private final Path stderr;

  private ChildJvm(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
  }

  /** Starts {@code main} with {@code args}; its standard error goes to {@code stderr}. */
  public static ChildJvm start(Class<?> main, Path stderr, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    // A crash-test child lives a few seconds: start fast (C1 only, serial GC, shared classes).
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-Xshare:auto");
    cmd.addAll(jvmFlags());
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path")));
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    return new ChildJvm(new ProcessBuilder(cmd).redirectError(stderr.toFile()).start(), stderr);
  }

  /**
   * Gives each line the child prints to {@code killNow} and kills the child with SIGKILL as soon
   * as it answers true; returns whether it did (false: the child ended on its own first).
   */
  public boolean readUntilKill(Predicate<String> killNow) throws IOException {
    return readUntilKill(killNow, line -> { });
  }

  /**
   * As {@link #readUntilKill(Predicate)}, then gives {@code printedBeforeDeath} every line the
   * child had printed before the kill took effect (a loaded machine may let it run on for a
   * while after the parent decided to kill it), until its output ends.
   */
  public boolean readUntilKill(Predicate<String> killNow, Consumer<String> printedBeforeDeath)
      throws IOException {
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        if (killNow.test(line)) {
          // SIGKILL through the handle: Process.destroyForcibly would also close our end of
          // the pipe, losing what the child printed before it died.
          process.toHandle().destroyForcibly();
          for (line = out.readLine(); line != null; line = out.readLine()) {
            printedBeforeDeath.accept(line);
          }
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Waits (up to 30 s) for the child to be gone; throws, naming {@code where}, if it is not.
   * Returns its exit value.
   */
  public int awaitDeath(String where) throws InterruptedException {
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("child did not die (" + where + ")");
    }
    return process.exitValue();
  }

  /** Where the child's standard error went. */
  public Path stderr() {
    return stderr;
  }

  /** The module-access and Netty/HBase system flags this JVM runs with. */
  private static List<String> jvmFlags() {
    List<String> out = new ArrayList<>();
    List<String> in = ManagementFactory.getRuntimeMXBean().getInputArguments();
    for (int i = 0; i < in.size(); i++) {
      String a = in.get(i);
      if (a.startsWith("--add-")) {
        out.add(a);
        if (!a.contains("=") && i + 1 < in.size()) {
          out.add(in.get(++i));
        }
      } else if (a.startsWith("-Dio.netty") || a.startsWith("-Dorg.apache.hbase")) {
        out.add(a);
      }
    }
    return out;
  }
}
