/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tiercache.core.config.SettingException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 10, findings 1, 3 and 4 for the {@code file:}, {@code files:} and {@code mmap:} engines:
 * space reserved at open, one cache per file (locks), and nothing at the path trusted (links,
 * owners, modes, non-regular files). Every refusal is a SettingException naming the key.
 */
class EngineFileSafetyTest {
  private static final int SLAB = 1 << 20;
  private static final long CAPACITY = 4L * SLAB;
  private static final String KEY = "hbase.bucketcache.ioengine";

  @TempDir Path dir;

  // ---- finding 1: space ------------------------------------------------------------------------

  /**
   * Before the fix this open succeeded (the 16 MB file was only setLength-ed on an 8 MB tmpfs),
   * and the first store past 8 MB raised SIGBUS. Nothing here writes into such a mapping.
   */
  @Test
  void open_mmapLargerThanItsFileSystem_isRefusedAtOpen() throws Exception {
    try (SmallTmpfs fs = SmallTmpfs.mount(dir.resolve("small"), "size=8m")) {
      Path file = fs.dir.resolve("cache.mmap");
      SettingException e = assertThrows(SettingException.class,
          () -> Engines.open("mmap:" + file, 16L * SLAB, SLAB).close());
      assertEquals(KEY, e.key());
      assertTrue(e.getMessage().contains("hbase.bucketcache.size"), e.getMessage());
      assertTrue(e.getMessage().contains(String.valueOf(16L * SLAB)), e.getMessage());
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
      assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS), "nothing is left at the path");
      assertFalse(Files.exists(Reservation.temporary(file), LinkOption.NOFOLLOW_LINKS));
      // what fits is still accepted
      Engines.open("mmap:" + file, 4L * SLAB, SLAB).close();
    }
  }

  /** ENOSPC while zeroes are written (space check skipped) is an IOException; nothing is left. */
  @Test
  void reserve_fileSystemFillsUp_throwsIOExceptionAndLeavesNothing() throws Exception {
    try (SmallTmpfs fs = SmallTmpfs.mount(dir.resolve("small"), "size=8m")) {
      Path file = fs.dir.resolve("cache.mmap");
      IOException e = assertThrows(IOException.class,
          () -> Reservation.ensure(file, 16L * SLAB, KEY, false));
      assertTrue(e.getMessage().contains("hbase.bucketcache.size"), e.getMessage());
      assertFalse(Files.exists(file));
      assertFalse(Files.exists(Reservation.temporary(file)));
    }
  }

  @Test
  void open_newMmapFile_isFullyAllocatedNotSparse() throws Exception {
    Path file = dir.resolve("cache.mmap");
    Engines.open("mmap:" + file, CAPACITY, SLAB).close();
    assertEquals(CAPACITY, Files.size(file));
    long allocated = allocatedBytes(file);
    assumeTrue(allocated >= 0, "skipped: stat(1) cannot report allocated blocks here");
    assertTrue(allocated >= CAPACITY, "allocated " + allocated + " of " + CAPACITY);
  }

  @Test
  void open_existingMmapFileOfRightLength_keepsItsBytes() throws IOException {
    Path file = dir.resolve("cache.mmap");
    byte[] bytes = new byte[(int) CAPACITY];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 31 + 7);
    }
    Files.write(file, bytes);
    Engines.open("mmap:" + file, CAPACITY, SLAB).close();
    assertArrayEquals(bytes, Files.readAllBytes(file));
  }

  @Test
  void open_leftoverReservationFromACrash_isReplaced() throws IOException {
    Path file = dir.resolve("cache.mmap");
    Files.write(Reservation.temporary(file), new byte[123]);
    try (Engine engine = Engines.open("mmap:" + file, CAPACITY, SLAB)) {
      assertEquals(CAPACITY, Files.size(file));
    }
    assertFalse(Files.exists(Reservation.temporary(file)));
  }

  // ---- finding 3: locks ------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void open_sameFileTwiceInOneJvm_secondIsRefusedUntilFirstCloses(String scheme)
      throws IOException {
    Path file = dir.resolve("cache.bin");
    String spec = scheme + ":" + file;
    Engine first = Engines.open(spec, CAPACITY, SLAB);
    try {
      SettingException e = assertThrows(SettingException.class,
          () -> Engines.open(spec, CAPACITY, SLAB).close());
      assertEquals(KEY, e.key());
      assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("in use"),
          e.getMessage());
    } finally {
      first.close();
    }
    Engines.open(spec, CAPACITY, SLAB).close(); // closing released the lock
  }

  @Test
  void open_filesSharingOneFileWithAnotherEngine_isRefusedAndReleasesTheOthers()
      throws IOException {
    Path a = dir.resolve("a.bin");
    Path b = dir.resolve("b.bin");
    try (Engine onB = Engines.open("file:" + b, CAPACITY, SLAB)) {
      assertThrows(SettingException.class,
          () -> Engines.open("files:" + a + "," + b, CAPACITY, SLAB).close());
      Engines.open("file:" + a, CAPACITY, SLAB).close(); // a's lock was released on failure
    }
  }

  @Test
  void open_lockHeldByAnotherProcess_isRefusedThenWorksOnceReleased() throws Exception {
    Path file = dir.resolve("cache.mmap");
    Process child = startLockHolder(file);
    try {
      SettingException e = assertThrows(SettingException.class,
          () -> Engines.open("mmap:" + file, CAPACITY, SLAB).close());
      assertEquals(KEY, e.key());
      assertTrue(e.getMessage().contains("another process"), e.getMessage());
    } finally {
      child.getOutputStream().close();
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the lock holder exits");
    }
    assertEquals(0, child.exitValue());
    Engines.open("mmap:" + file, CAPACITY, SLAB).close();
  }

  /**
   * A Linux record lock is dropped when the process closes any descriptor of the locked file;
   * the lock is on a sibling file, so an engine's own reopen after an interrupt keeps it.
   */
  @Test
  void lock_afterFileEngineReopensItsChannel_isStillHeld() throws Exception {
    Path file = dir.resolve("cache.bin");
    try (Engine engine = Engines.open("file:" + file, CAPACITY, SLAB)) {
      Thread.currentThread().interrupt();
      try {
        assertThrows(IOException.class, () -> engine.read(0, ByteBuffer.allocate(16)));
      } finally {
        Thread.interrupted();
      }
      engine.read(0, ByteBuffer.allocate(16)); // reopened
      Files.readAllBytes(file); // another descriptor of the file, opened and closed
      Process child = new ProcessBuilder(javaCommand(LockHolder.class.getName(),
          file.toString())).redirectErrorStream(true).start();
      child.getOutputStream().close();
      String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(child.waitFor(60, TimeUnit.SECONDS));
      assertTrue(out.contains("in use by another process"), out);
    }
  }

  // ---- finding 4: what is at the path ----------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void open_symlink_isRefusedAndTargetUntouched(String scheme) throws IOException {
    Path target = dir.resolve("precious.txt");
    Files.write(target, "keep me".getBytes(StandardCharsets.UTF_8));
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
    Path link = Files.createSymbolicLink(dir.resolve("cache.bin"), target);
    SettingException e = assertThrows(SettingException.class,
        () -> Engines.open(scheme + ":" + link, CAPACITY, SLAB).close());
    assertEquals(KEY, e.key());
    assertTrue(e.getMessage().contains("symbolic link") && e.getMessage().contains(link.toString()),
        e.getMessage());
    assertEquals("keep me", new String(Files.readAllBytes(target), StandardCharsets.UTF_8));
    assertEquals("rw-r--r--", PosixFilePermissions.toString(
        Files.getPosixFilePermissions(target)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void open_worldWritableFile_endsOwnerOnly(String scheme) throws IOException {
    assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"));
    Path file = dir.resolve("cache.bin");
    Files.write(file, new byte[(int) CAPACITY]);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
    Engines.open(scheme + ":" + file, CAPACITY, SLAB).close();
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"file", "mmap"})
  void open_directory_isRefused(String scheme) throws IOException {
    Path sub = Files.createDirectory(dir.resolve("cache.bin"));
    SettingException e = assertThrows(SettingException.class,
        () -> Engines.open(scheme + ":" + sub, CAPACITY, SLAB).close());
    assertTrue(e.getMessage().contains("a directory"), e.getMessage());
    assertTrue(Files.isDirectory(sub));
  }

  @Test
  void open_fifo_isRefused() throws Exception {
    Path fifo = dir.resolve("cache.bin");
    Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assumeTrue(p.waitFor() == 0, "skipped: mkfifo is not available");
    SettingException e = assertThrows(SettingException.class,
        () -> Engines.open("file:" + fifo, CAPACITY, SLAB).close());
    assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
  }

  @Test
  void open_fileOfAnotherUser_isRefused() throws IOException {
    assumeTrue("root".equals(System.getProperty("user.name")),
        "skipped: only root can give a file to another user");
    UserPrincipal nobody;
    try {
      nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
    } catch (IOException e) {
      assumeTrue(false, "skipped: no user 'nobody'");
      return;
    }
    Path file = dir.resolve("cache.bin");
    Files.write(file, new byte[(int) CAPACITY]);
    Files.setOwner(file, nobody);
    SettingException e = assertThrows(SettingException.class,
        () -> Engines.open("mmap:" + file, CAPACITY, SLAB).close());
    assertTrue(e.getMessage().contains("owned by nobody"), e.getMessage());
    assertEquals(nobody, Files.getOwner(file));
  }

  // ---- no leaks -------------------------------------------------------------------------------

  /** Every refusal closes what it opened: 20 of each leave no descriptor behind. */
  @Test
  void refusedOpens_leaveNoOpenDescriptors() throws IOException {
    Path fds = Paths.get("/proc/self/fd");
    assumeTrue(Files.isDirectory(fds), "skipped: no /proc/self/fd to count descriptors");
    Path held = dir.resolve("held.mmap");
    Path link = Files.createSymbolicLink(dir.resolve("link.mmap"), dir.resolve("nowhere"));
    Path sub = Files.createDirectory(dir.resolve("sub.mmap"));
    try (Engine engine = Engines.open("mmap:" + held, CAPACITY, SLAB)) {
      long before = count(fds);
      for (int i = 0; i < 20; i++) {
        assertThrows(SettingException.class,
            () -> Engines.open("mmap:" + held, CAPACITY, SLAB).close());
        assertThrows(SettingException.class,
            () -> Engines.open("files:" + dir.resolve("ok.bin") + "," + held, CAPACITY, SLAB));
        assertThrows(SettingException.class,
            () -> Engines.open("mmap:" + link, CAPACITY, SLAB).close());
        assertThrows(SettingException.class,
            () -> Engines.open("file:" + sub, CAPACITY, SLAB).close());
        assertThrows(SettingException.class,
            () -> Engines.open("mmap:" + dir.resolve("huge.mmap"), 1L << 50, SLAB).close());
      }
      assertTrue(count(fds) < before + 5, "descriptors: " + before + " -> " + count(fds));
    }
  }

  private static long count(Path dir) throws IOException {
    try (java.util.stream.Stream<Path> s = Files.list(dir)) {
      return s.count();
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static Process startLockHolder(Path file) throws IOException {
    Process child = new ProcessBuilder(javaCommand(LockHolder.class.getName(), file.toString()))
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine(); // blocks until the child holds the lock (or exits)
    if (!"locked".equals(line)) {
      child.destroyForcibly();
      throw new IllegalStateException("the lock holder did not start: " + line);
    }
    return child;
  }

  static List<String> javaCommand(String... mainAndArgs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx64m");
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path")));
    cmd.addAll(List.of(mainAndArgs));
    return cmd;
  }

  /** Bytes allocated to {@code file} by its file system (stat %b × %B), or -1 if unknown. */
  private static long allocatedBytes(Path file) throws InterruptedException {
    try {
      Process p = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.waitFor() != 0) {
        return -1;
      }
      String[] parts = out.split(" ");
      return Long.parseLong(parts[0]) * Long.parseLong(parts[1]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
