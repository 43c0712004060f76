/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.Waiter;

/**
 * What the in-process HBase ITs share: starting ZooKeeper, HDFS and HBase, and stopping what they
 * started, in order, whatever is null.
 */
final class MiniClusters {
  private MiniClusters() {}

  /**
   * Starts ZooKeeper, HDFS and one master with one RegionServer on {@code conf} (the caller's
   * keys, ports included), and waits up to {@code waitMs} until the master is initialized with
   * the RegionServer online.
   */
  static LocalHBaseCluster start(HBaseTestingUtility util, Configuration conf, long waitMs)
      throws Exception {
    util.startMiniZKCluster();
    util.startMiniDFSCluster(1);
    util.createRootDir();
    LocalHBaseCluster cluster = new LocalHBaseCluster(conf, 1, 1);
    cluster.startup();
    Waiter.waitFor(conf, waitMs, () -> cluster.getActiveMaster() != null
        && cluster.getActiveMaster().isInitialized()
        && !cluster.getActiveMaster().getServerManager().getOnlineServersList().isEmpty());
    return cluster;
  }

  /** Closes the client side, stops HBase, then HDFS and ZooKeeper, and removes the test dir. */
  static void stop(AutoCloseable[] clients, LocalHBaseCluster cluster, HBaseTestingUtility util)
      throws Exception {
    for (AutoCloseable c : clients) {
      if (c != null) {
        c.close();
      }
    }
    if (cluster != null) {
      cluster.shutdown();
      cluster.join();
    }
    if (util != null) {
      util.shutdownMiniDFSCluster();
      util.shutdownMiniZKCluster();
      util.cleanupTestDir();
    }
  }
}
