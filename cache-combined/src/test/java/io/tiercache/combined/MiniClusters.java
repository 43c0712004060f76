/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.LocalHBaseCluster;

/** What the in-process HBase ITs share: stopping what they started, in order, whatever is null. */
final class MiniClusters {
  private MiniClusters() {}

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
