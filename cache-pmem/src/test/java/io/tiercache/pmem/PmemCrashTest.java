/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.contract.ChildJvm;
import io.tiercache.core.contract.TestBlocks;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kills a writing child JVM ({@link CrashWriter}) with SIGKILL at seeded random points, reopens
 * its pool, and checks that every block served has exactly the bytes cached under its key and
 * that most of the blocks live at the kill survive. On emulated pmem (tmpfs) a process crash
 * keeps every store already made, so this exercises the record protocol's ordering against a
 * kill between any two of its steps; power loss is the same argument with flushes (see
 * docs/pmem.md). Seed: {@code -Dtiercache.test.seed=N}.
 */
class PmemCrashTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261121L);
  private static final int ROUNDS = 2;

  private final PoolDir pools = new PoolDir();

  @AfterEach
  void removePools() {
    pools.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void sigkillWhileWriting_thenReopen_neverServesWrongBytesAndKeepsMostBlocks(String backend)
      throws Exception {
    NativeLibraries.assumeBackend(backend);
    Path pool = pools.resolve("crash.pool");
    SplittableRandom rnd = new SplittableRandom(SEED);
    for (int round = 0; round < ROUNDS; round++) {
      long childSeed = rnd.nextLong();
      int killAfter = 50 + rnd.nextInt(1500);
      String where = "backend " + backend + ", seed " + SEED + ", round " + round + ", kill after "
          + killAfter + " publications";
      int[] last = runAndKill(pool, backend, childSeed, killAfter, where);
      BucketTier t = CrashWriter.open(pool.toString(), backend);
      try {
        long restored = t.getBlockCount();
        int served = 0;
        for (int i = 0; i <= last[0] + 1_000; i++) {
          Cacheable got = t.getBlock(CrashWriter.key(i), true, false, true);
          if (got != null) {
            try {
              TestBlocks.assertBlock(CrashWriter.key(i), CrashWriter.size(i), BlockType.DATA,
                  got);
            } catch (AssertionError e) {
              throw new AssertionError("wrong bytes for block " + i + " (" + where + ")", e);
            } finally {
              got.release();
            }
            served++;
          }
        }
        t.checkInvariants();
        assertTrue(served >= 0.8 * last[1] - 5, "only " + served + " of " + last[1]
            + " live blocks survived (restored " + restored + "; " + where + ")");
      } finally {
        t.shutdown();
      }
    }
  }

  /** Runs the child until it reports {@code killAfter} publications; returns the last report. */
  private static int[] runAndKill(Path pool, String backend, long seed, int killAfter,
      String where) throws IOException, InterruptedException {
    ChildJvm child = ChildJvm.start(CrashWriter.class, pool.resolveSibling("child.err"),
        pool.toString(), backend, Long.toString(seed));
    int[] last = {-1, 0};
    child.readUntilKill(line -> {
      if (!line.startsWith("P ")) {
        return false;
      }
      String[] f = line.split(" ");
      last[0] = Integer.parseInt(f[1]);
      last[1] = Integer.parseInt(f[2]);
      return last[0] >= killAfter;
    });
    int exit = child.awaitDeath(where);
    if (last[0] < killAfter) {
      fail("child stopped after " + last[0] + " publications, exit " + exit + "; see "
          + child.stderr() + " (" + where + ")");
    }
    return last;
  }
}
