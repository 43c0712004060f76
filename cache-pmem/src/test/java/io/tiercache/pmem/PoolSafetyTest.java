/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tiercache.bucket.BucketTier;
import io.tiercache.core.config.SettingException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 10, findings 1, 3 and 4 for the {@code pmem:} pool, on each back end: the pool is fully
 * allocated at open (a pool larger than its file system is refused, never a SIGBUS later), one
 * cache per pool (locked), and nothing at the path is trusted.
 */
class PoolSafetyTest {
  private static final int MB = 1 << 20;
  private static final String KEY = "hbase.bucketcache.ioengine";
  private static final int[] SIZES = {5 * 1024, 33 * 1024, 65 * 1024};

  private final PoolDir pools = new PoolDir();
  private final Path pool = pools.resolve("l2.pool");

  @AfterEach
  void removePools() {
    pools.close();
  }

  private static BucketTier open(Path pool, String backend, long capacity) {
    return BucketTier.builder().ioEngine("pmem:" + pool).pmemBackend(backend).capacity(capacity)
        .slabSize(MB).bucketSizes(SIZES).writers(1, 8).build();
  }

  /**
   * Before the fix this open succeeded on the 8 MB tmpfs (the pool was only setLength-ed), and
   * the first store past 8 MB raised SIGBUS. Nothing here writes into such a mapping.
   */
  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void open_poolLargerThanItsFileSystem_isRefusedAtOpen(String backend) throws Exception {
    NativeLibraries.assumeBackend(backend);
    Path small = pools.resolve("small");
    Files.createDirectories(small);
    Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs",
        small.toString()).redirectErrorStream(true).start();
    String out = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assumeTrue(mount.waitFor() == 0, "skipped: cannot mount a tmpfs (needs root with "
        + "CAP_SYS_ADMIN; CI runs as root): " + out);
    try {
      Path inSmall = small.resolve("l2.pool");
      SettingException e = assertThrows(SettingException.class,
          () -> open(inSmall, backend, 16L * MB).shutdown());
      assertEquals(KEY, e.key());
      assertTrue(e.getMessage().contains("hbase.bucketcache.size")
          && e.getMessage().contains(inSmall.toString()), e.getMessage());
      assertFalse(Files.exists(inSmall, LinkOption.NOFOLLOW_LINKS), "nothing is left");
      open(inSmall, backend, 4L * MB).shutdown(); // what fits is still accepted
    } finally {
      Process umount = new ProcessBuilder("umount", small.toString()).start();
      assertEquals(0, umount.waitFor(), "umount " + small);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void open_samePoolTwice_secondIsRefusedUntilFirstShutsDown(String backend) {
    NativeLibraries.assumeBackend(backend);
    BucketTier first = open(pool, backend, 8L * MB);
    try {
      SettingException e = assertThrows(SettingException.class,
          () -> open(pool, backend, 8L * MB).shutdown());
      assertEquals(KEY, e.key());
      assertTrue(e.getMessage().contains(pool.toString()) && e.getMessage().contains("in use"),
          e.getMessage());
    } finally {
      first.shutdown();
    }
    open(pool, backend, 8L * MB).shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void open_poolLockedByAnotherProcess_isRefusedThenWorksOnceReleased(String backend)
      throws Exception {
    NativeLibraries.assumeBackend(backend);
    Process child = new ProcessBuilder(javaCommand(PoolLockHolder.class.getName(),
        pool.toString())).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      String line = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8)).readLine(); // blocks until the child holds the lock
      assertEquals("locked", line);
      SettingException e = assertThrows(SettingException.class,
          () -> open(pool, backend, 8L * MB).shutdown());
      assertTrue(e.getMessage().contains("another process"), e.getMessage());
    } finally {
      child.getOutputStream().close();
      assertTrue(child.waitFor(60, TimeUnit.SECONDS));
    }
    open(pool, backend, 8L * MB).shutdown();
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void open_symlink_isRefusedAndTargetUntouched(String backend) throws IOException {
    NativeLibraries.assumeBackend(backend);
    Path target = pools.resolve("precious.txt");
    Files.write(target, "keep me".getBytes(StandardCharsets.UTF_8));
    Files.createSymbolicLink(pool, target);
    SettingException e = assertThrows(SettingException.class,
        () -> open(pool, backend, 8L * MB).shutdown());
    assertEquals(KEY, e.key());
    assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    assertEquals("keep me", new String(Files.readAllBytes(target), StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void open_worldWritablePool_endsOwnerOnlyAndStaysWarm(String backend) throws IOException {
    NativeLibraries.assumeBackend(backend);
    open(pool, backend, 8L * MB).shutdown();
    Files.setPosixFilePermissions(pool, PosixFilePermissions.fromString("rw-rw-rw-"));
    open(pool, backend, 8L * MB).shutdown();
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(pool)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"dax", "llpl"})
  void open_directory_isRefused(String backend) throws IOException {
    NativeLibraries.assumeBackend(backend);
    Files.createDirectory(pool);
    SettingException e = assertThrows(SettingException.class,
        () -> open(pool, backend, 8L * MB).shutdown());
    assertTrue(e.getMessage().contains("a directory"), e.getMessage());
  }

  private static List<String> javaCommand(String... mainAndArgs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx64m");
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path")));
    cmd.addAll(List.of(mainAndArgs));
    return cmd;
  }
}
