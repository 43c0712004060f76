/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import io.tiercache.bench.Main;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jmh}: JMH's own command line, with HBase's JDK 17 flags appended to the forked JVMs'
 * arguments and three forks unless {@code -f} says otherwise; after the run, a table of every
 * subject by benchmark method with the score and its 99.9 % confidence interval ({@link
 * JmhTable}). JMH's listing and help options ({@code -l}, {@code -lp}, {@code -h}) go to JMH as
 * they are.
 *
 * <p>Concurrency: runs on the main thread.
 */
@Command(name = "jmh", usageHelpAutoWidth = true,
    description = {"The JMH microbenchmarks: JMH's own options and benchmark regexps, passed on "
        + "(benchmarks.jar jmh -h lists them). Defaults: 3 forks (-f 3), HBase's JDK 17 flags "
        + "appended to the forks (-jvmArgsAppend). Ends with a subject x benchmark table of "
        + "score ± error (99.9%% CI)."})
public final class JmhCommand implements Callable<Integer> {
  /** Forks unless {@code -f} is given: error bars need more than one JVM's worth of noise. */
  static final int DEFAULT_FORKS = 3;
  private static final Set<String> JMH_ONLY = Set.of("-h", "-l", "-lp", "-lprof", "-lrf");

  @Option(names = "--help", usageHelp = true, description = "Print this and exit (JMH's own "
      + "options: -h).")
  boolean help;

  @Parameters(paramLabel = "JMH-ARGS", arity = "0..*",
      description = "JMH options and benchmark regexps, e.g. HitBenchmark -p "
          + "subject=tiercache-l1,hbase-lru -wi 3 -i 5")
  List<String> jmhArgs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    List<String> args = withDefaults(jmhArgs, Main.jvmFlags());
    if (args.stream().anyMatch(JMH_ONLY::contains)) {
      org.openjdk.jmh.Main.main(args.toArray(new String[0]));
      return 0;
    }
    Collection<RunResult> results =
        new Runner(new CommandLineOptions(args.toArray(new String[0]))).run();
    List<JmhTable.Row> rows = new ArrayList<>();
    for (RunResult r : results) {
      Result<?> primary = r.getPrimaryResult();
      String label = r.getParams().getBenchmark();
      String subject = r.getParams().getParam("subject");
      rows.add(new JmhTable.Row(label.substring(label.lastIndexOf('.', label.lastIndexOf('.') - 1)
          + 1), subject == null ? "-" : subject, primary.getScore(), primary.getScoreError(),
          primary.getScoreUnit(), primary.getSampleCount()));
    }
    System.out.println();
    System.out.println("score ± error (99.9% confidence interval), per subject and benchmark:");
    System.out.print(JmhTable.markdown(rows));
    return 0;
  }

  /**
   * {@code args} with {@code -jvmArgsAppend flags} and {@code -f 3} added unless given (or a
   * listing or help option is asked for).
   */
  static List<String> withDefaults(List<String> args, String jvmFlags) {
    List<String> list = new ArrayList<>(args);
    if (list.stream().anyMatch(JMH_ONLY::contains)) {
      return list;
    }
    if (!list.contains("-jvmArgsAppend")) {
      list.add(0, "-jvmArgsAppend");
      list.add(1, jvmFlags);
    }
    if (!list.contains("-f")) {
      list.add(0, "-f");
      list.add(1, Integer.toString(DEFAULT_FORKS));
    }
    return list;
  }
}
