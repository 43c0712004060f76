/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tiercache.bucket.engine.SmallTmpfs;
import io.tiercache.core.config.SettingException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10, findings 3, 4 and 5a for {@code hbase.bucketcache.persistent.path}: validated when
 * the tier is built (before its engine opens), locked while the tier lives, never followed
 * through a link; and a lasting checkpoint failure is logged rate-limited.
 */
class PersistentPathTest {
  private static final int MB = 1 << 20;
  private static final String KEY = "hbase.bucketcache.persistent.path";

  @TempDir Path dir;

  private BucketTier open(String engineFile, Path checkpoint) {
    return BucketTier.builder().ioEngine("mmap:" + dir.resolve(engineFile)).capacity(4L * MB)
        .slabSize(MB).persistentPath(checkpoint.toString()).persistIntervalMs(3_600_000).build();
  }

  private SettingException refused(Path checkpoint) {
    SettingException e = assertThrows(SettingException.class,
        () -> open("c.mmap", checkpoint).shutdown());
    assertEquals(KEY, e.key(), e.getMessage());
    // nothing was left open: the engine file can be opened again at once
    open("c.mmap", dir.resolve("ok.ckpt")).shutdown();
    return e;
  }

  @Test
  void build_checkpointInMissingDirectory_isRefused() {
    SettingException e = refused(dir.resolve("missing").resolve("index.ckpt"));
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
  }

  @Test
  void build_checkpointPathIsDirectory_isRefused() throws IOException {
    Path sub = Files.createDirectory(dir.resolve("index.ckpt"));
    SettingException e = refused(sub);
    assertTrue(e.getMessage().contains("a directory"), e.getMessage());
  }

  @Test
  void build_checkpointPathIsSymlink_isRefusedAndTargetUntouched() throws IOException {
    Path target = dir.resolve("precious.txt");
    Files.write(target, "keep me".getBytes(StandardCharsets.UTF_8));
    Path link = Files.createSymbolicLink(dir.resolve("index.ckpt"), target);
    SettingException e = refused(link);
    assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    assertEquals("keep me", new String(Files.readAllBytes(target), StandardCharsets.UTF_8));
  }

  @Test
  void build_checkpointInReadOnlyDirectory_isRefused() throws Exception {
    Path ro = dir.resolve("ro");
    if ("root".equals(System.getProperty("user.name"))) {
      // root writes through mode bits; a read-only mount stops it
      try (SmallTmpfs fs = SmallTmpfs.mount(ro, "ro,size=1m")) {
        SettingException e = refused(ro.resolve("index.ckpt"));
        assertTrue(e.getMessage().contains("cannot create files in " + ro), e.getMessage());
      }
    } else {
      Files.createDirectory(ro);
      Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-x------"));
      SettingException e = refused(ro.resolve("index.ckpt"));
      assertTrue(e.getMessage().contains("cannot create files in " + ro), e.getMessage());
    }
  }

  @Test
  void build_groupReadableCheckpoint_endsOwnerOnly() throws IOException {
    Path ckpt = dir.resolve("index.ckpt");
    Files.write(ckpt, new byte[0]); // unusable: a cold start, but the file is checked first
    Files.setPosixFilePermissions(ckpt, PosixFilePermissions.fromString("rw-r--r--"));
    open("c.mmap", ckpt).shutdown();
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ckpt)));
  }

  @Test
  void build_checkpointUsedByAnotherTier_isRefusedAndReleasesTheEngine() {
    Path ckpt = dir.resolve("index.ckpt");
    BucketTier first = open("a.mmap", ckpt);
    try {
      SettingException e = assertThrows(SettingException.class,
          () -> open("b.mmap", ckpt).shutdown());
      assertEquals(KEY, e.key());
      assertTrue(e.getMessage().contains("in use"), e.getMessage());
      open("b.mmap", dir.resolve("other.ckpt")).shutdown(); // b.mmap was closed and unlocked
    } finally {
      first.shutdown();
    }
    open("b.mmap", ckpt).shutdown(); // shutdown released the checkpoint's lock
  }

  @Test
  void build_engineFileUsedByAnotherTier_isRefused() {
    BucketTier first = open("a.mmap", dir.resolve("1.ckpt"));
    try {
      SettingException e = assertThrows(SettingException.class,
          () -> open("a.mmap", dir.resolve("2.ckpt")).shutdown());
      assertEquals("hbase.bucketcache.ioengine", e.key());
      open("b.mmap", dir.resolve("2.ckpt")).shutdown(); // 2.ckpt was released on failure
    } finally {
      first.shutdown();
    }
  }
}
