/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench;

import io.tiercache.bench.showdown.Showdown;
import io.tiercache.bench.subject.Subject;
import io.tiercache.bench.subject.Subjects;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * The benchmarks jar's entry point.
 *
 * <pre>
 * java -Xms3g -Xmx3g -XX:MaxDirectMemorySize=2g -jar benchmarks/target/benchmarks.jar showdown --quick
 * java -XX:MaxDirectMemorySize=1g -jar benchmarks/target/benchmarks.jar jmh HitBenchmark -p subject=hbase-lru
 * java -jar benchmarks/target/benchmarks.jar subjects
 * </pre>
 *
 * <p>The jar's manifest opens the JDK packages HBase needs ({@code Add-Opens}); {@code jmh}
 * passes HBase's JDK 17 flags on to JMH's forked JVMs, which do not read the manifest.
 */
public final class Main {
  private static final String LEAK_DETECTION =
      "org.apache.hbase.thirdparty.io.netty.leakDetection.level";

  private Main() {}

  public static void main(String[] args) throws Exception {
    // Before any HBase class loads: HBase's shaded Netty reads these once.
    System.setProperty("io.netty.tryReflectionSetAccessible", "true");
    System.setProperty("org.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible", "true");
    // HBase's reference counts sample 1 in 128 buffers for leak reports; BucketCache.shutdown()
    // drops its entries without releasing them, which fills the output with false leak reports.
    // Off for every subject alike (TierCache tiers use the same RefCnt).
    if (System.getProperty(LEAK_DETECTION) == null) {
      System.setProperty(LEAK_DETECTION, "disabled");
    }
    String command = args.length == 0 ? "help" : args[0];
    String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    switch (command) {
      case "showdown":
        Showdown.main(rest);
        break;
      case "jmh":
        org.openjdk.jmh.Main.main(jmhArgs(rest));
        break;
      case "footprint":
        io.tiercache.bench.footprint.Footprint.main(rest);
        break;
      case "restart":
        io.tiercache.bench.restart.Restart.main(rest);
        break;
      case "real-hbase":
        io.tiercache.bench.hbase.RealHBase.main(rest);
        break;
      case "subjects":
        for (Subject s : Subjects.standard().all()) {
          System.out.printf("%-22s %s%n", s.name(), s.description());
        }
        break;
      default:
        System.out.println("usage: benchmarks.jar showdown [--quick|--full] [options]  "
            + "(showdown --help for options)\n"
            + "       benchmarks.jar jmh [JMH options] [benchmark regexp]  (jmh -h for options)\n"
            + "       benchmarks.jar footprint [--blocks N] [--subjects a,b]\n"
            + "       benchmarks.jar restart [--blocks N] [--payload BYTES] [--subjects a,b]\n"
            + "       benchmarks.jar real-hbase [--quick] [--cache-mb MB] [--ratios 3,9]\n"
            + "       benchmarks.jar subjects");
        System.exit("help".equals(command) || "--help".equals(command) ? 0 : 2);
    }
  }

  /** JMH's arguments with HBase's JDK 17 flags appended to the forked JVMs' arguments. */
  static String[] jmhArgs(String[] args) throws IOException {
    List<String> list = new ArrayList<>(Arrays.asList(args));
    if (!list.contains("-jvmArgsAppend") && !list.contains("-h") && !list.contains("-l")) {
      list.add(0, "-jvmArgsAppend");
      list.add(1, jvmFlags());
    }
    return list.toArray(new String[0]);
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
