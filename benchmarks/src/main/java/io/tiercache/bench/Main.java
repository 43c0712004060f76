/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench;

import io.tiercache.bench.cli.Git;
import io.tiercache.bench.footprint.Footprint;
import io.tiercache.bench.hbase.RealHBase;
import io.tiercache.bench.jmh.JmhCommand;
import io.tiercache.bench.restart.Restart;
import io.tiercache.bench.scale.Scale;
import io.tiercache.bench.showdown.Options;
import io.tiercache.bench.subject.Subject;
import io.tiercache.bench.subject.Subjects;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The benchmarks jar's entry point.
 *
 * <pre>
 * java -Xms3g -Xmx3g -XX:MaxDirectMemorySize=2g -jar benchmarks/target/benchmarks.jar showdown --quick
 * java -XX:MaxDirectMemorySize=1g -jar benchmarks/target/benchmarks.jar jmh HitBenchmark -p subject=hbase-lru
 * java -jar benchmarks/target/benchmarks.jar subjects
 * java -jar benchmarks/target/benchmarks.jar showdown --help
 * </pre>
 *
 * <p>Every command's options are picocli annotations on its command class ({@code Options} for
 * the showdown, {@code Footprint.Command}, ...); {@code --help} prints them with their defaults.
 *
 * <p>The jar's manifest opens the JDK packages HBase needs ({@code Add-Opens}); {@code jmh}
 * passes HBase's JDK 17 flags on to JMH's forked JVMs, which do not read the manifest.
 */
@Command(name = "benchmarks.jar", mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class, usageHelpAutoWidth = true,
    description = "TierCache's benchmarks against HBase's block caches. "
        + "'benchmarks.jar COMMAND --help' describes each command.")
public final class Main implements Runnable {
  @Spec
  CommandSpec spec;

  private static final String LEAK_DETECTION =
      "org.apache.hbase.thirdparty.io.netty.leakDetection.level";

  private Main() {}

  /** The jar's version, from its manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"TierCache benchmarks " + (v == null ? "(not from the jar)" : v)
          + ", commit " + Git.commit()};
    }
  }

  public static void main(String[] args) {
    // Before any HBase class loads: HBase's shaded Netty reads these once.
    System.setProperty("io.netty.tryReflectionSetAccessible", "true");
    System.setProperty("org.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible", "true");
    // HBase's reference counts sample 1 in 128 buffers for leak reports; BucketCache.shutdown()
    // drops its entries without releasing them, which fills the output with false leak reports.
    // Off for every subject alike (TierCache tiers use the same RefCnt).
    if (System.getProperty(LEAK_DETECTION) == null) {
      System.setProperty(LEAK_DETECTION, "disabled");
    }
    System.exit(commandLine().execute(args));
  }

  /** The command line with every command; {@code execute} returns the exit status. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Main());
    cli.addSubcommand("showdown", new Options());
    cli.addSubcommand("jmh", new CommandLine(new JmhCommand())
        .setUnmatchedOptionsArePositionalParams(true));
    cli.addSubcommand("footprint", new Footprint.Command());
    cli.addSubcommand("restart", new Restart.Command());
    cli.addSubcommand("real-hbase", new RealHBase.Command());
    cli.addSubcommand("scale", new Scale.Command());
    cli.addSubcommand("subjects", new SubjectsCommand());
    cli.addSubcommand("help", new CommandLine.HelpCommand());
    return cli;
  }

  /** No command: the usage. */
  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code subjects}: every registered subject with its description. */
  @Command(name = "subjects", mixinStandardHelpOptions = true,
      description = "List the subjects (caches under test) with what each one is.")
  static final class SubjectsCommand implements Runnable {
    @Override
    public void run() {
      for (Subject s : Subjects.standard().all()) {
        System.out.printf("%-22s %s%n", s.name(), s.description());
      }
    }
  }

  /** The flags HBase passes to a JDK 17 JVM, from the parent pom's {@code jdk17.test.flags}. */
  public static String jvmFlags() throws IOException {
    Properties p = new Properties();
    try (InputStream in = Main.class.getResourceAsStream("/tiercache-bench.properties")) {
      if (in == null) {
        throw new IOException("tiercache-bench.properties missing from the classpath");
      }
      p.load(in);
    }
    return p.getProperty("jvm.flags").trim();
  }
}
