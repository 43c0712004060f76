/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.meta.BlockMeta;
import io.tiercache.bucket.persist.Checkpoint;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint file format: the streamed {@code TCCKPT03} round-trips whatever its chunking,
 * and a {@code TCCKPT02} file written by the previous release is still read (an upgrade restarts
 * warm).
 */
class CheckpointFormatTest {
  private static final long SEED = 14L;
  private static final Checkpoint.Geometry GEOMETRY =
      new Checkpoint.Geometry("file:/x", 8L << 20, 1 << 20, new int[] {512, 1024});

  @TempDir
  Path dir;

  @Test
  void write_oneBlockPerChunkOrMany_readsBackEveryField() throws Exception {
    List<BlockMeta> entries = entries(1_000);
    for (int buffer : new int[] {Checkpoint.Writer.MIN_BUFFER, 100, 4096, 1 << 20}) {
      Path p = dir.resolve("c-" + buffer);
      try (Checkpoint.Writer w = Checkpoint.Writer.open(p, GEOMETRY, Map.of(1, "deser"),
          new byte[buffer])) {
        for (BlockMeta e : entries) {
          w.block(e);
        }
        w.finish(files(), regions());
      }
      assertSame(entries, Checkpoint.read(p, GEOMETRY), "buffer " + buffer);
      assertFalse(Files.exists(dir.resolve("c-" + buffer + ".tmp")), "no temporary file left");
    }
  }

  @Test
  void read_aTccKpt02File_readsEveryField() throws Exception {
    List<BlockMeta> entries = entries(300);
    Path p = dir.resolve("v2");
    Files.write(p, v2(entries));
    assertSame(entries, Checkpoint.read(p, GEOMETRY), "TCCKPT02");
  }

  @Test
  void close_withoutFinish_leavesTheOldCheckpointAndNoTemporaryFile() throws Exception {
    Path p = dir.resolve("c");
    Checkpoint.write(p, GEOMETRY, Map.of(1, "deser"), files(), regions(), entries(10));
    byte[] before = Files.readAllBytes(p);
    try (Checkpoint.Writer w = Checkpoint.Writer.open(p, GEOMETRY, Map.of(), new byte[64])) {
      BlockMeta one = new BlockMeta();
      one.handle = Handles.of(0, 0);
      one.length = 1;
      w.block(one);
    }
    assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(
        Files.readAllBytes(p)));
    assertFalse(Files.exists(dir.resolve("c.tmp")));
    assertThrows(IllegalArgumentException.class,
        () -> Checkpoint.Writer.open(p, GEOMETRY, Map.of(), new byte[8]));
  }

  private static Map<Integer, String> files() {
    Map<Integer, String> m = new TreeMap<>();
    for (int f = 0; f < 7; f++) {
      m.put(f * 1_000, "hfile-" + f);
    }
    return m;
  }

  private static Map<Integer, String> regions() {
    Map<Integer, String> m = new TreeMap<>();
    for (int f = 0; f < 7; f += 2) {
      m.put(f * 1_000, "region-" + f);
    }
    return m;
  }

  private static List<BlockMeta> entries(int n) {
    SplittableRandom r = new SplittableRandom(SEED);
    List<BlockMeta> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      BlockMeta e = new BlockMeta();
      e.fileId = r.nextInt(7) * 1_000;
      e.blockOffset = r.nextLong(1L << 40);
      e.handle = Handles.of(r.nextInt(8), r.nextInt(2048));
      e.sizeClass = r.nextInt(2);
      e.length = 1 + r.nextInt(1024);
      e.checksum = r.nextInt();
      e.flags = r.nextInt(256);
      e.deserializer = 1;
      e.type = r.nextInt(256);
      e.freq = r.nextInt(256);
      e.cachedAt = r.nextInt();
      out.add(e);
    }
    return out;
  }

  private static void assertSame(List<BlockMeta> expected, Checkpoint.Loaded loaded,
      String what) {
    assertEquals(expected.size(), loaded.entries.size(), what + ": blocks (seed " + SEED + ")");
    assertEquals(Map.of(1, "deser"), loaded.deserializers, what);
    for (int i = 0; i < expected.size(); i++) {
      BlockMeta a = expected.get(i);
      BlockMeta b = loaded.entries.get(i);
      String at = what + ": entry " + i + " (seed " + SEED + ")";
      assertEquals(files().get(a.fileId), b.file, at);
      assertEquals(regions().get(a.fileId), b.region, at);
      assertEquals(List.of(a.fileId, a.blockOffset, Handles.slab(a.handle),
          Handles.slot(a.handle), a.sizeClass, a.length, a.checksum, a.flags, a.deserializer,
          a.type, a.freq, a.cachedAt),
          List.of(b.fileId, b.blockOffset, Handles.slab(b.handle), Handles.slot(b.handle),
              b.sizeClass, b.length, b.checksum, b.flags, b.deserializer, b.type, b.freq,
              b.cachedAt), at);
    }
  }

  /** The TCCKPT02 layout, as the previous release wrote it. */
  private static byte[] v2(List<BlockMeta> entries) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeBytes("TCCKPT02");
    out.writeUTF(GEOMETRY_ENGINE);
    out.writeLong(8L << 20);
    out.writeInt(1 << 20);
    out.writeInt(2);
    out.writeInt(512);
    out.writeInt(1024);
    names(out, Map.of(1, "deser"));
    names(out, files());
    names(out, regions());
    out.writeLong(entries.size());
    for (BlockMeta e : entries) {
      out.writeInt(e.fileId);
      out.writeLong(e.blockOffset);
      out.writeInt(Handles.slab(e.handle));
      out.writeInt(Handles.slot(e.handle));
      out.writeByte(e.sizeClass);
      out.writeInt(e.length);
      out.writeInt(e.checksum);
      out.writeByte(e.flags);
      out.writeByte(e.deserializer);
      out.writeByte(e.type);
      out.writeByte(e.freq);
      out.writeInt(e.cachedAt);
    }
    out.flush();
    CRC32C crc = new CRC32C();
    crc.update(bytes.toByteArray());
    out.writeInt((int) crc.getValue());
    return bytes.toByteArray();
  }

  private static final String GEOMETRY_ENGINE = "file:/x";

  private static void names(DataOutputStream out, Map<Integer, String> names)
      throws IOException {
    out.writeInt(names.size());
    for (Map.Entry<Integer, String> e : names.entrySet()) {
      out.writeInt(e.getKey());
      out.writeUTF(e.getValue());
    }
  }
}
