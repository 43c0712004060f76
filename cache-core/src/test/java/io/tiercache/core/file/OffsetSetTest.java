/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Differential test of the primitive offset set against {@link HashSet}. */
class OffsetSetTest {
  @Test
  void randomAddRemove_matchesHashSet() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      OffsetSet set = new OffsetSet();
      Set<Long> ref = new HashSet<>();
      int universe = 1 + rnd.nextInt(2000);
      for (int op = 0; op < 20_000; op++) {
        long v = rnd.nextInt(universe) * 65_569L;
        String ctx = "seed " + seed + " op " + op;
        switch (rnd.nextInt(3)) {
          case 0:
            assertEquals(ref.add(v), set.add(v), ctx);
            break;
          case 1:
            assertEquals(ref.remove(v), set.remove(v), ctx);
            break;
          default:
            assertEquals(ref.contains(v), set.contains(v), ctx);
        }
        assertEquals(ref.size(), set.size(), ctx);
      }
      long[] got = set.toArray();
      Arrays.sort(got);
      assertArrayEquals(ref.stream().mapToLong(Long::longValue).sorted().toArray(), got);
    }
  }

  @Test
  void add_negativeOffset_isRejected() {
    assertThrows(IllegalArgumentException.class, () -> new OffsetSet().add(-1));
  }
}
