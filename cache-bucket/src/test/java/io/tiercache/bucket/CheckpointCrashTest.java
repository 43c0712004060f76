/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.tiercache.core.contract.ChildJvm;
import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kills a child JVM ({@link CheckpointCrashWriter}) that churns a checkpointed L2 with SIGKILL at
 * seeded points — during the churn, and just as it starts a checkpoint — then reopens the engine
 * and its checkpoint in this JVM and checks every block served byte for byte against what was
 * cached under its key (a payload is a pure function of its key). Rounds reuse the same files:
 * a later child starts warm from the checkpoint this JVM wrote when it shut the reopened tier
 * down, and reuses its slots, so a kill before the child's own first checkpoint leaves a
 * checkpoint that names overwritten slots. Blocks written after the last
 * checkpoint are lost by design; blocks the checkpoint names whose slots were reused after it
 * must fail their CRC32C and be dropped, never served. Prints, per round, the blocks kept.
 * Seed: {@code -Dtiercache.test.seed=N}.
 */
class CheckpointCrashTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261121L);
  private static final int ROUNDS = 2;

  @TempDir
  Path dir;

  /** What the parent saw of the child before the kill. */
  private static final class Seen {
    int lastWrite = -1;
    /** The last write the child printed before it died (at or after {@link #lastWrite}). */
    int lastWritten = -1;
    int checkpointsStarted;
    int checkpointsDone;
    long liveAtLastCheckpoint = -1;
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "files", "mmap"})
  void sigkill_duringChurnOrCheckpoint_thenRestart_servesNoWrongByte(String kind)
      throws Exception {
    SplittableRandom rnd = new SplittableRandom(SEED ^ kind.hashCode());
    int maxWrite = 0; // keys of earlier rounds may be restored too
    for (int round = 0; round < ROUNDS; round++) {
      long childSeed = rnd.nextLong();
      boolean inCheckpoint = round % 2 == 1;
      int killAt = inCheckpoint ? 1 + rnd.nextInt(3) : 100 + rnd.nextInt(800);
      String where = "engine " + kind + ", seed " + SEED + ", round " + round + ", kill "
          + (inCheckpoint ? "as checkpoint " + killAt + " starts" : "after write " + killAt);
      Seen seen = runAndKill(kind, childSeed, inCheckpoint, killAt, where);
      BucketTier t = CheckpointCrashWriter.open(kind, dir);
      try {
        long restored = t.getBlockCount();
        int served = 0;
        int wrong = 0;
        AssertionError firstWrong = null;
        maxWrite = Math.max(maxWrite, seen.lastWritten + 1);
        for (int i = 0; i <= maxWrite; i++) {
          Cacheable got = t.getBlock(CheckpointCrashWriter.key(i), true, false, true);
          if (got == null) {
            continue;
          }
          try {
            TestBlocks.assertBlock(CheckpointCrashWriter.key(i), CheckpointCrashWriter.size(i),
                BlockType.DATA, got);
            served++;
          } catch (AssertionError e) {
            wrong++;
            firstWrong = firstWrong != null ? firstWrong : e;
          } finally {
            got.release();
          }
        }
        System.out.printf("checkpoint crash: %s: restored %d, served %d (live at the last "
            + "completed checkpoint %d, %d checkpoints done), checksum drops %d, wrong %d%n",
            where, restored, served, seen.liveAtLastCheckpoint, seen.checkpointsDone,
            t.checksumFailures(), wrong);
        if (wrong > 0) {
          throw new AssertionError(wrong + " blocks with wrong bytes (" + where + ")",
              firstWrong);
        }
        t.checkInvariants();
        assertEquals(served, t.getBlockCount(), "every block left after the reads was served ("
            + where + ")");
      } finally {
        t.shutdown();
      }
    }
  }

  private Seen runAndKill(String kind, long seed, boolean inCheckpoint, int killAt,
      String where) throws Exception {
    ChildJvm child = ChildJvm.start(CheckpointCrashWriter.class, dir.resolve("child.err"), kind,
        dir.toString(), Long.toString(seed));
    Seen seen = new Seen();
    child.readUntilKill(line -> {
      String[] f = line.split(" ");
      switch (f[0]) {
        case "P":
          seen.lastWrite = Integer.parseInt(f[1]);
          seen.lastWritten = seen.lastWrite;
          return !inCheckpoint && seen.lastWrite >= killAt;
        case "C":
          seen.checkpointsStarted++;
          return inCheckpoint && seen.checkpointsStarted >= killAt;
        case "D":
          seen.checkpointsDone++;
          seen.liveAtLastCheckpoint = Long.parseLong(f[2]);
          return false;
        default:
          return false;
      }
    }, line -> {
      // Written after the kill point but before the SIGKILL landed: a checkpoint the child
      // finished meanwhile names these blocks, so the restart may serve them too.
      String[] f = line.split(" ");
      if (f[0].equals("P")) {
        seen.lastWritten = Integer.parseInt(f[1]);
      }
    });
    int exit = child.awaitDeath(where);
    boolean reached = inCheckpoint ? seen.checkpointsStarted >= killAt : seen.lastWrite >= killAt;
    if (!reached) {
      fail("child ended before the kill point, exit " + exit + "; see " + child.stderr() + " ("
          + where + ")");
    }
    return seen;
  }
}
