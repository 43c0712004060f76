/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.jupiter.api.Test;

/**
 * {@link Keys#regionOfFile} reads the region from the path's string; it must answer exactly what
 * Hadoop's own walk, {@code getParent().getParent().getName()}, answers, for store file paths and
 * for the odd ones (short, relative, root, escaped characters).
 */
class KeysTest {
  private static String walk(Path file) {
    Path family = file.getParent();
    Path region = family == null ? null : family.getParent();
    return region == null ? null : region.getName();
  }

  @Test
  void regionOfFileAnswersAsPathsOwnWalk() {
    List<String> paths = List.of(
        "hdfs://nn:8020/hbase/data/default/usertable/0f1e2d3c4b5a69788796a5b4c3d2e1f0/cf/"
            + "5b0c0ad8c1e34f6c9a3b1f0e2d4c6a8b",
        "file:/tmp/hbase/data/ns/t/region1/family/file1",
        "/hbase/data/default/t/r/f/file",
        "/r/f/file", "/f/file", "/file", "/", "r/f/file", "x/r/f/file", "f/file", "file",
        "/a/b/c/", "hdfs://nn/a b/r%20x/f/file", "/archive/data/default/t/r/f/file.parent",
        "s3a://bucket/hbase/data/default/t/r/f/file");
    for (String p : paths) {
      Path file = new Path(p);
      assertEquals(walk(file), Keys.regionOfFile(file), p);
    }
  }

  @Test
  void regionOfFileMatchesTheWalkOnRandomPaths() {
    long seed = 20261127L;
    SplittableRandom random = new SplittableRandom(seed);
    String alphabet = "ab/./.x-_ %:";
    for (int i = 0; i < 2_000; i++) {
      StringBuilder b = new StringBuilder(random.nextBoolean() ? "/" : "");
      int length = 1 + random.nextInt(24);
      for (int j = 0; j < length; j++) {
        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      Path file;
      try {
        file = new Path(b.toString());
      } catch (IllegalArgumentException e) {
        continue; // not a path Hadoop accepts (a scheme-like prefix): nothing to compare
      }
      assertEquals(walk(file), Keys.regionOfFile(file),
          "path '" + b + "' (seed " + seed + ", case " + i + ")");
    }
  }

  @Test
  void regionOfAKeyComesFromItsPath() {
    BlockCacheKey key = new BlockCacheKey(new Path("hdfs://nn/hbase/data/default/t/r1/f/file9"),
        0L, true, BlockType.DATA);
    assertEquals("r1", Keys.regionOf(key));
    assertNull(Keys.regionOf(new BlockCacheKey("file9", 0L)));
  }
}
