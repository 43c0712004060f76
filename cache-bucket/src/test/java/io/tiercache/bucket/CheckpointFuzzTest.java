/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.bucket.persist.Checkpoint;
import io.tiercache.core.contract.TestBlocks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializerIdManager;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fuzzes the checkpoint reader and the restore ({@link Checkpoint#read},
 * {@code Persistence.restore}): a good checkpoint of a warm L2 is damaged — truncated, bit
 * flipped, overwritten with random bytes, extended, emptied — or written again with a valid CRC
 * but damaged fields (slab, slot, class, length, checksum, deserializer, type, flags), or opened
 * with other geometry; the block bytes are damaged too. Every case must construct the tier
 * without an exception and serve only blocks with exactly their key's bytes. The key fields of an
 * entry are trusted under the checkpoint's CRC (a block's bytes do not name their file). Seed:
 * {@code -Dtiercache.test.seed=N}; cases: {@code -Dtiercache.fuzz.cases=N} (default 32, four of each kind).
 */
class CheckpointFuzzTest {
  private static final long SEED = Long.getLong("tiercache.test.seed", 20261124L);
  private static final int CASES = Integer.getInteger("tiercache.fuzz.cases", 32);
  private static final int MB = 1 << 20;
  private static final int BLOCKS = 40;

  @TempDir
  Path dir;

  private String kind;

  private String engine() {
    return kind.equals("file") ? "file:" + dir.resolve("l2.cache") : "mmap:" + dir.resolve("l2.mmap");
  }

  private Path data() {
    return dir.resolve(kind.equals("file") ? "l2.cache" : "l2.mmap");
  }

  private Path checkpoint() {
    return dir.resolve("l2.ckpt");
  }

  private BucketTier open(int[] sizes, long capacity) {
    BucketTierBuilder b = BucketTier.builder().ioEngine(engine()).capacity(capacity)
        .slabSize(MB).writers(1, 8).persistentPath(checkpoint().toString())
        .persistIntervalMs(Integer.MAX_VALUE);
    if (sizes != null) {
      b.bucketSizes(sizes);
    }
    BucketTier t = b.build();
    if (!t.waitForCacheInitialization(60_000)) {
      throw new AssertionError("the background restore did not finish in 60 s");
    }
    return t;
  }

  private static BlockCacheKey key(int i) {
    return TestBlocks.key("fuzz-" + (i % 3), i * 100_000L, BlockType.DATA);
  }

  private static int size(int i) {
    return i % 2 == 0 ? 20_000 : 4_000;
  }

  /** Reads every key: returns the hits, each checked byte for byte. */
  private static int served(BucketTier t, String where) {
    int n = 0;
    for (int i = 0; i < BLOCKS; i++) {
      Cacheable got = t.getBlock(key(i), true, false, true);
      if (got != null) {
        try {
          TestBlocks.assertBlock(key(i), size(i), BlockType.DATA, got);
        } catch (AssertionError e) {
          throw new AssertionError("wrong bytes for block " + i + " (" + where + ")", e);
        } finally {
          got.release();
        }
        n++;
      }
    }
    return n;
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void damagedCheckpointOrBlocks_coldStartOrGoodBlocks_neverAnExceptionOrAWrongByte(String kind)
      throws Exception {
    this.kind = kind;
    BucketTier warm = open(null, 4L * MB);
    for (int i = 0; i < BLOCKS; i++) {
      HFileBlock b = TestBlocks.heap(key(i).getHfileName(), key(i).getOffset(), size(i),
          BlockType.DATA);
      warm.cacheBlock(key(i), b, false, true);
      b.release();
    }
    warm.shutdown();
    byte[] good = Files.readAllBytes(checkpoint());
    byte[] blocks = Files.readAllBytes(data());
    SplittableRandom rnd = new SplittableRandom(SEED ^ kind.hashCode());
    Map<String, int[]> outcomes = new HashMap<>();
    for (int c = 0; c < CASES; c++) {
      long caseSeed = rnd.nextLong();
      SplittableRandom r = new SplittableRandom(caseSeed);
      Files.write(data(), blocks);
      int[] sizes = null;
      long capacity = 4L * MB;
      String what;
      int mutation = c % 8;
      switch (mutation) {
        case 0:
          what = "truncated";
          Files.write(checkpoint(), java.util.Arrays.copyOf(good, r.nextInt(good.length)));
          break;
        case 1:
        case 2:
          what = "bit flips";
          Files.write(checkpoint(), flip(good, 1 + r.nextInt(8), r));
          break;
        case 3:
          what = "random run";
          Files.write(checkpoint(), overwrite(good, r));
          break;
        case 4:
          what = r.nextBoolean() ? "empty" : "extended";
          Files.write(checkpoint(), what.equals("empty") ? new byte[0]
              : concat(good, randomBytes(1 + r.nextInt(64), r)));
          break;
        case 5:
          what = "fields with a valid CRC";
          Files.write(checkpoint(), good);
          rewriteFields(r);
          break;
        case 6:
          what = "other geometry";
          Files.write(checkpoint(), good);
          if (r.nextBoolean()) {
            sizes = new int[] {5 * 1024, 9 * 1024, 17 * 1024, 33 * 1024, 65 * 1024};
          } else {
            capacity = 8L * MB;
          }
          break;
        default:
          what = "damaged block bytes";
          Files.write(checkpoint(), good);
          Files.write(data(), flip(blocks, 1 + r.nextInt(32), r));
          break;
      }
      String where = kind + ", case " + c + " (" + what + "), case seed " + caseSeed
          + ", seed " + SEED;
      BucketTier t;
      try {
        t = open(sizes, capacity);
      } catch (RuntimeException e) {
        throw new AssertionError("constructor threw (" + where + ")", e);
      }
      try {
        long restored = t.getBlockCount();
        int served = served(t, where);
        t.checkInvariants();
        assertTrue(served <= restored, where);
        int[] o = outcomes.computeIfAbsent(what, k -> new int[3]);
        o[restored == 0 ? 0 : served == BLOCKS ? 2 : 1]++;
        if (mutation <= 4 || mutation == 6) {
          // A damaged file fails its CRC (or geometry) as a whole: nothing is restored.
          assertEquals(0, restored, "restored from a damaged checkpoint (" + where + ")");
        }
      } finally {
        t.shutdown();
      }
    }
    StringBuilder sb = new StringBuilder("checkpoint fuzz (" + kind + ", seed " + SEED + ", "
        + CASES + " cases; cold / partial / all " + BLOCKS + " served):");
    outcomes.forEach((k, v) -> sb.append(' ').append(k).append(' ').append(v[0]).append('/')
        .append(v[1]).append('/').append(v[2]).append(';'));
    System.out.println(sb);
  }

  /**
   * The bucket-size count is read before the CRC can be checked: a damaged count must not size
   * an array (negative: an unchecked exception out of the constructor; huge: out of memory).
   */
  @ParameterizedTest
  @ValueSource(ints = {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, 1 << 28})
  void damagedBucketSizeCount_isACheckpointNotAnException(int count) throws Exception {
    this.kind = "file";
    BucketTier warm = open(null, 4L * MB);
    HFileBlock b = TestBlocks.heap(key(0).getHfileName(), key(0).getOffset(), size(0),
        BlockType.DATA);
    warm.cacheBlock(key(0), b, false, true);
    b.release();
    warm.shutdown();
    byte[] bytes = Files.readAllBytes(checkpoint());
    // magic, engine (2-byte length + ASCII), capacity, slab size, then the count
    int at = 8 + 2 + engineDescription().length() + 8 + 4;
    java.nio.ByteBuffer.wrap(bytes).putInt(at, count);
    Files.write(checkpoint(), bytes);
    BucketTier t = open(null, 4L * MB);
    try {
      assertEquals(0, t.getBlockCount(), "a cold start");
    } finally {
      t.shutdown();
    }
  }

  /** Reads the checkpoint, damages fields of a few entries, writes it back with a valid CRC. */
  private void rewriteFields(SplittableRandom r) throws IOException {
    Checkpoint.Geometry geometry = new Checkpoint.Geometry(engineDescription(), 4L * MB, MB,
        defaultSizes());
    Checkpoint.Loaded loaded;
    try {
      loaded = Checkpoint.read(checkpoint(), geometry);
    } catch (Checkpoint.Unusable e) {
      throw new AssertionError("the good checkpoint is unusable: " + e.getMessage());
    }
    Map<Integer, String> files = new HashMap<>();
    for (BlockMeta e : loaded.entries) {
      files.put(e.fileId, e.file);
    }
    int damaged = 1 + r.nextInt(6);
    for (int d = 0; d < damaged; d++) {
      BlockMeta e = loaded.entries.get(r.nextInt(loaded.entries.size()));
      switch (r.nextInt(8)) {
        case 0:
          e.handle = Handles.of(r.nextInt(8) - 2, Handles.slot(e.handle));
          break;
        case 1:
          e.handle = Handles.of(Handles.slab(e.handle),
              r.nextBoolean() ? r.nextInt(1000) - 10 : Handles.slot(e.handle) + 1);
          break;
        case 2:
          e.sizeClass = r.nextInt(20);
          break;
        case 3:
          e.length = r.nextBoolean() ? -r.nextInt(100) : e.length + r.nextInt(40_000) - 20_000;
          break;
        case 4:
          e.checksum ^= 1 << r.nextInt(32);
          break;
        case 5:
          e.deserializer = r.nextInt(256);
          break;
        case 6:
          e.type = r.nextInt(256);
          break;
        default:
          e.flags = r.nextInt(256);
          break;
      }
    }
    Checkpoint.write(checkpoint(), geometry, CacheableDeserializerIdManager.save(), files,
        Map.of(), loaded.entries);
  }

  private String engineDescription() throws IOException {
    try (io.tiercache.bucket.engine.Engine e =
        io.tiercache.bucket.engine.Engines.open(engine(), 4L * MB, MB)) {
      return e.describe();
    }
  }

  private static int[] defaultSizes() {
    return io.tiercache.core.config.CacheSettings.L2_BUCKET_SIZES.defaultValue();
  }

  private static byte[] flip(byte[] in, int flips, SplittableRandom r) {
    byte[] out = in.clone();
    for (int i = 0; i < flips && out.length > 0; i++) {
      int at = r.nextInt(out.length);
      out[at] ^= (byte) (1 << r.nextInt(8));
    }
    return out;
  }

  private static byte[] overwrite(byte[] in, SplittableRandom r) {
    byte[] out = in.clone();
    int from = r.nextInt(out.length);
    int len = 1 + r.nextInt(Math.min(64, out.length - from));
    for (int i = from; i < from + len; i++) {
      out[i] = (byte) r.nextInt(256);
    }
    return out;
  }

  private static byte[] randomBytes(int n, SplittableRandom r) {
    byte[] out = new byte[n];
    for (int i = 0; i < n; i++) {
      out[i] = (byte) r.nextInt(256);
    }
    return out;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
