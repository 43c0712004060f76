/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tiercache.core.contract.ChildJvm;
import io.tiercache.core.contract.TestBlocks;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SIGKILL during churn with the index journal (issue 15): a child JVM ({@link
 * JournalCrashWriter}) churns a journaled L2 and syncs its journal now and then (some syncs
 * are compactions into a full checkpoint), and is killed with SIGKILL at a seeded write. The
 * restarted tier must serve every block the child held at its last completed sync (save those
 * it evicted after: the child says which before evicting), serve nothing with wrong bytes, and
 * nothing the child never published. And a sync that is not a compaction must write in
 * proportion to the changes since the last one (about 33 bytes per publication, 21 per
 * removal), not to the blocks cached: a full checkpoint per sync fails that. Seed:
 * {@code -Dtiercache.test.seed=N}.
 */
class JournalCrashTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261126L);
  private static final int ROUNDS = 2;

  @TempDir
  Path dir;

  /** What the parent saw of the child before the kill. */
  private static final class Seen {
    int lastWrite = -1;
    int syncs;
    Set<Integer> synced = new HashSet<>();
    Set<Integer> evictedSince = new HashSet<>();
    List<String> badSyncs = new ArrayList<>();
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "files", "mmap"})
  void sigkill_duringJournaledChurn_keepsEverySyncedBlock_servesNoWrongByte(String kind)
      throws Exception {
    SplittableRandom rnd = new SplittableRandom(SEED ^ kind.hashCode());
    int maxWrite = -1; // a later round starts warm from the blocks of the earlier ones
    for (int round = 0; round < ROUNDS; round++) {
      int killAt = 150 + rnd.nextInt(900);
      String where = "engine " + kind + ", seed " + SEED + ", round " + round
          + ", kill after write " + killAt;
      Seen seen = runAndKill(kind, rnd.nextLong(), killAt, where);
      maxWrite = Math.max(maxWrite, seen.lastWrite + 1);
      assertTrue(seen.badSyncs.isEmpty(), "syncs wrote more than their changes (" + where
          + "): " + seen.badSyncs);
      BucketTier t = JournalCrashWriter.open(kind, dir);
      try {
        Set<Integer> served = new HashSet<>();
        for (int i = 0; i < JournalCrashWriter.MAX_KEYS; i++) {
          Cacheable got = t.getBlock(JournalCrashWriter.key(i), true, false, true);
          if (got == null) {
            continue;
          }
          try {
            TestBlocks.assertBlock(JournalCrashWriter.key(i), JournalCrashWriter.SIZE,
                BlockType.DATA, got);
          } catch (AssertionError e) {
            throw new AssertionError("wrong bytes for block " + i + " (" + where + ")", e);
          } finally {
            got.release();
          }
          served.add(i);
          assertTrue(i <= maxWrite, "block " + i + " was never written (" + where + ")");
        }
        Set<Integer> expected = new HashSet<>(seen.synced);
        expected.removeAll(seen.evictedSince);
        Set<Integer> lost = new HashSet<>(expected);
        lost.removeAll(served);
        System.out.printf("journal crash: %s: %d syncs, %d blocks at the last, %d evicted "
            + "since, %d served, %d lost%n", where, seen.syncs, seen.synced.size(),
            seen.evictedSince.size(), served.size(), lost.size());
        assertTrue(lost.isEmpty(), "blocks of the last sync lost (" + where + "): " + lost);
        t.checkInvariants();
      } finally {
        t.shutdown();
      }
    }
  }

  private Seen runAndKill(String kind, long seed, int killAt, String where) throws Exception {
    ChildJvm child = ChildJvm.start(JournalCrashWriter.class, dir.resolve("child.err"), kind,
        dir.toString(), Long.toString(seed));
    Seen seen = new Seen();
    java.util.function.Predicate<String> read = line -> {
      String[] f = line.split(" ");
      switch (f[0]) {
        case "P":
          seen.lastWrite = Integer.parseInt(f[1]);
          return seen.lastWrite >= killAt && seen.syncs >= 1;
        case "E":
          seen.evictedSince.add(Integer.parseInt(f[1]));
          return false;
        case "S":
          seen.syncs++;
          long bytes = Long.parseLong(f[2]);
          boolean full = Boolean.parseBoolean(f[3]);
          int changes = Integer.parseInt(f[4]);
          if (!full && bytes > 60L * changes + 512) {
            seen.badSyncs.add(bytes + " bytes for " + changes + " changes");
          }
          seen.synced.clear();
          seen.evictedSince.clear();
          if (f.length > 5) {
            for (String k : f[5].split(",")) {
              seen.synced.add(Integer.parseInt(k));
            }
          }
          return false;
        default:
          return false;
      }
    };
    // Under load the child runs on past the kill point until SIGKILL lands: what it printed
    // before it died (writes, evictions, even a finished sync) counts too.
    child.readUntilKill(read, read::test);
    child.awaitDeath(where);
    if (seen.syncs == 0) {
      fail("the child never synced; see " + child.stderr() + " (" + where + ")");
    }
    return seen;
  }
}
