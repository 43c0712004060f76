/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import io.tiercache.core.config.SettingException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the files the L2 keeps (engine files, the {@code pmem:} pool, the index checkpoint)
 * without trusting what is already at their paths, and locks them against a second user. Used
 * by the engines, the checkpoint and cache-pmem, so the rules live once.
 *
 * <pre>
 * Rules (each refusal is a SettingException naming the key and the path)
 *   - The last path component is never followed: a symbolic link is refused, and files are
 *     opened with NOFOLLOW_LINKS (O_NOFOLLOW), so a link swapped in after the check fails the
 *     open rather than redirecting it. Links in parent directories are the operator's layout
 *     and are followed.
 *   - Only regular files: directories, devices, fifos and sockets are refused.
 *   - Only files owned by the user the JVM runs as.
 *   - Owner-only: a new file is created rw------- in the creating system call (O_EXCL); an
 *     existing file with any group or other permission bit is changed to rw------- with one
 *     WARN (not refused: the fix is safe and keeps a warm restart warm).
 *
 * Locking
 *   lock(file) takes an exclusive FileChannel.tryLock on a sibling file "&lt;file&gt;.lock",
 *   held until the Lock is closed; a second user, in another process (the OS lock) or in this
 *   JVM (OverlappingFileLockException), is refused. The lock is on a sibling, not on the file
 *   itself, because Linux record locks (fcntl, what the JDK uses) belong to the process and the
 *   file and are dropped when the process closes ANY descriptor of that file: FileEngine reopens
 *   its channel after an interrupt, the pmem back ends open and close the pool (LLPL's
 *   pmem_map_file does), and each would silently drop a lock held on the file itself. The lock
 *   file is opened once, never read or written, and left in place at close (deleting it would
 *   race with a second user that opened it just before).
 *
 * Concurrency
 *   Stateless apart from the JVM's uid (final) and a logged-once flag; thread safe. A Lock is
 *   closed once, by any thread.
 * </pre>
 */
public final class FileGuard {
  private static final Logger LOG = LoggerFactory.getLogger(FileGuard.class);

  /** rw-------. */
  public static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private static final Set<PosixFilePermission> NOT_OWNER = EnumSet.of(
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

  /** The uid this JVM runs as; -1 where there is none (not Unix). */
  private static final long JVM_UID = jvmUid();

  private static volatile boolean ownerUnknownLogged;

  private FileGuard() {}

  /**
   * Checks what is at {@code path} without following a link there: absent (returns null), or a
   * regular file owned by this JVM's user, made owner-only if it was not.
   *
   * @throws SettingException naming {@code key} for a link, a non-regular file or another owner
   */
  public static BasicFileAttributes checkExisting(Path path, String key) throws IOException {
    BasicFileAttributes attrs = attributes(path);
    if (attrs == null) {
      return null;
    }
    if (attrs.isSymbolicLink()) {
      throw refuse(key, path, "is a symbolic link" + target(path)
          + "; links are not followed: name the file itself");
    }
    if (!attrs.isRegularFile()) {
      throw refuse(key, path, "is " + (attrs.isDirectory() ? "a directory"
          : "not a regular file (a device, fifo or socket)") + "; expected a regular file or "
          + "a path that does not exist yet");
    }
    if (attrs instanceof PosixFileAttributes) {
      PosixFileAttributes posix = (PosixFileAttributes) attrs;
      if (!ownedByJvmUser(path, posix)) {
        throw refuse(key, path, "is owned by " + posix.owner().getName() + ", not by "
            + System.getProperty("user.name") + " who runs this cache; refusing another user's "
            + "file: remove it or name another path");
      }
      Set<PosixFilePermission> perms = posix.permissions();
      if (!disjoint(perms, NOT_OWNER)) {
        Files.getFileAttributeView(path, PosixFileAttributeView.class,
            LinkOption.NOFOLLOW_LINKS).setPermissions(EnumSet.copyOf(OWNER_ONLY));
        LOG.warn("{}: {} was {}; changed to rw------- (cache files are owner-only)", key, path,
            PosixFilePermissions.toString(perms));
      }
    }
    return attrs;
  }

  /**
   * Opens the existing file {@code path} read-write after {@link #checkExisting}, with
   * NOFOLLOW_LINKS, and checks that the file opened is the file checked.
   */
  public static FileChannel openExisting(Path path, String key) throws IOException {
    BasicFileAttributes checked = checkExisting(path, key);
    if (checked == null) {
      throw new NoSuchFileException(path.toString());
    }
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS);
    BasicFileAttributes opened = attributes(path);
    if (opened == null || !Objects.equals(opened.fileKey(), checked.fileKey())) {
      ch.close();
      throw refuse(key, path, "was replaced while it was being opened");
    }
    return ch;
  }

  /**
   * Creates {@code path} owner-only in the creating system call (O_CREAT | O_EXCL, which never
   * follows a link) and opens it read-write.
   *
   * @throws FileAlreadyExistsException if anything, a link included, is already there
   */
  public static FileChannel createNew(Path path) throws IOException {
    Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    FileAttribute<Set<PosixFilePermission>> ownerOnly =
        PosixFilePermissions.asFileAttribute(OWNER_ONLY);
    try {
      return FileChannel.open(path, options, ownerOnly);
    } catch (UnsupportedOperationException e) {
      return FileChannel.open(path, options); // not POSIX: the file system's ACLs apply
    }
  }

  /**
   * Checks that {@code path} can hold a file this JVM creates: its directory exists and this
   * user can create files in it (a probe file is created and deleted, which also catches a
   * read-only mount), and the path itself is absent or a file {@link #checkExisting} accepts.
   *
   * @throws SettingException naming {@code key} and what is wrong
   */
  public static void checkWritableFile(Path path, String key) throws IOException {
    Path dir = path.toAbsolutePath().getParent();
    if (dir == null || path.getFileName() == null) {
      throw new SettingException(key, "'" + path + "' names no file; expected a file path");
    }
    if (!Files.isDirectory(dir)) {
      throw new SettingException(key, "directory " + dir + " of " + path + (Files.exists(dir)
          ? " is not a directory" : " does not exist") + "; create it or name another path");
    }
    checkExisting(path, key);
    Path probe;
    try {
      probe = Files.createTempFile(dir, ".tiercache-probe-", ".tmp");
    } catch (IOException | SecurityException e) {
      throw new SettingException(key, "cannot create files in " + dir + " (" + e
          + "); the directory must be writable by the user running the cache");
    }
    Files.deleteIfExists(probe);
  }

  /**
   * Takes the exclusive lock guarding {@code file}: a lock on {@code <file>.lock}, created
   * owner-only if absent. Close the returned lock to release it.
   *
   * @throws SettingException naming {@code key} and {@code file} if another process or another
   *     cache in this JVM holds it
   */
  public static Lock lock(Path file, String key) throws IOException {
    Path lockPath = file.resolveSibling(file.getFileName() + ".lock");
    FileChannel ch;
    try {
      ch = createNew(lockPath);
    } catch (FileAlreadyExistsException e) {
      ch = openExisting(lockPath, key);
    }
    try {
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        throw new SettingException(key, file + " is already in use by another cache in this "
            + "JVM (it holds " + lockPath + "); two caches on one file would overwrite each "
            + "other's blocks: give each its own path");
      }
      if (lock == null) {
        throw new SettingException(key, file + " is in use by another process (it holds the "
            + "lock on " + lockPath + "); two caches on one file would overwrite each other's "
            + "blocks: stop the other process or give each RegionServer its own path");
      }
      return new Lock(lockPath, ch);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** An exclusive lock taken by {@link #lock}; {@link #close()} releases it. */
  public static final class Lock implements Closeable {
    private final Path path;
    private final FileChannel channel;

    private Lock(Path path, FileChannel channel) {
      this.path = path;
      this.channel = channel;
    }

    /** The lock file. */
    public Path path() {
      return path;
    }

    /** Releases the lock (closing the channel releases it); idempotent. */
    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /** A refusal naming the key and the path, caused by an IOException that says the same. */
  private static SettingException refuse(String key, Path path, String reason) {
    SettingException e = new SettingException(key, path + " " + reason);
    e.initCause(new FileSystemException(path.toString(), null, reason));
    return e;
  }

  /** The file's attributes, not following a link; null if nothing is there. */
  private static BasicFileAttributes attributes(Path path) throws IOException {
    try {
      try {
        return Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (UnsupportedOperationException e) {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      }
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static String target(Path link) {
    try {
      return " (to " + Files.readSymbolicLink(link) + ")";
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  /**
   * Whether the file's owner is the user this JVM runs as: by uid where the platform has one
   * (Unix), else by the user name; true only if neither can be read, with one WARN.
   */
  private static boolean ownedByJvmUser(Path path, PosixFileAttributes attrs) {
    if (JVM_UID >= 0) {
      try {
        Object uid = Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        return uid instanceof Integer && ((Integer) uid) == JVM_UID;
      } catch (IOException | RuntimeException e) {
        // not the unix attribute view: compare names below
      }
    }
    String name = System.getProperty("user.name");
    try {
      UserPrincipal me = path.getFileSystem().getUserPrincipalLookupService()
          .lookupPrincipalByName(name);
      return me.equals(attrs.owner());
    } catch (IOException | RuntimeException e) {
      if (!ownerUnknownLogged) {
        ownerUnknownLogged = true;
        LOG.warn("cannot tell which user this JVM runs as ({}): the owner of cache files is not "
            + "checked", e.toString());
      }
      return true;
    }
  }

  private static long jvmUid() {
    try {
      return new com.sun.security.auth.module.UnixSystem().getUid();
    } catch (LinkageError | RuntimeException e) {
      return -1; // not Unix, or the jdk.security.auth module is absent
    }
  }

  private static boolean disjoint(Set<PosixFilePermission> a, Set<PosixFilePermission> b) {
    for (PosixFilePermission p : a) {
      if (b.contains(p)) {
        return false;
      }
    }
    return true;
  }
}
