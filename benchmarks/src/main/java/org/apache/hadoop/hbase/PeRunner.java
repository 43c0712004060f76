/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package org.apache.hadoop.hbase;

import com.codahale.metrics.Snapshot;
import java.util.Arrays;
import java.util.LinkedList;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * Runs HBase's own {@link PerformanceEvaluation} ({@code --nomapred}, clients as threads of this
 * JVM) and hands back each client's result. PE prints its results only to its log; its runner
 * ({@code parseOpts}, {@code checkTable}, {@code doLocalClients}) is package-private, hence this
 * class's package. Nothing of PE is changed or copied: the same code {@code hbase pe} runs.
 */
public final class PeRunner {
  private PeRunner() {}

  /** One PE client's figures; latencies in microseconds as PE records them. */
  public static final class ClientResult {
    public final long operations;
    public final long durationMs;
    public final double meanUs;
    public final double p50Us;
    public final double p99Us;
    public final double p999Us;
    public final long maxUs;

    ClientResult(long operations, long durationMs, Snapshot s) {
      this.operations = operations;
      this.durationMs = durationMs;
      this.meanUs = s.getMean();
      this.p50Us = s.getMedian();
      this.p99Us = s.get99thPercentile();
      this.p999Us = s.get999thPercentile();
      this.maxUs = s.getMax();
    }
  }

  /**
   * Runs PE with {@code args} exactly as its command line takes them, e.g.
   * {@code --nomapred --rows=100000 --latency randomRead 2}, against the cluster {@code conf}
   * points at; creates PE's table first when the command writes.
   */
  public static ClientResult[] run(Configuration conf, String... args) throws Exception {
    PerformanceEvaluation.TestOptions opts =
        PerformanceEvaluation.parseOpts(new LinkedList<>(Arrays.asList(args)));
    if (opts.cmdName == null) {
      throw new IllegalArgumentException("not a PE command line: " + Arrays.toString(args));
    }
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      PerformanceEvaluation.checkTable(admin, opts);
    }
    PerformanceEvaluation.RunResult[] results = PerformanceEvaluation.doLocalClients(opts, conf);
    ClientResult[] out = new ClientResult[results.length];
    for (int i = 0; i < results.length; i++) {
      out[i] = new ClientResult(results[i].hist.getCount(), results[i].duration,
          results[i].hist.getSnapshot());
    }
    return out;
  }
}
