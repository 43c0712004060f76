/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A small tmpfs mounted on a test's directory, for file systems that are too small or read-only.
 * Needs root (CAP_SYS_ADMIN), as CI runs; elsewhere the test is skipped with a message saying so.
 */
public final class SmallTmpfs implements AutoCloseable {
  public final Path dir;

  private SmallTmpfs(Path dir) {
    this.dir = dir;
  }

  /** Mounts a tmpfs with {@code options} (e.g. {@code size=8m}, {@code ro,size=1m}) on dir. */
  public static SmallTmpfs mount(Path dir, String options) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Result r = run("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString());
    assumeTrue(r.exit == 0, "skipped: cannot mount a tmpfs on " + dir + " (needs root with "
        + "CAP_SYS_ADMIN; CI runs as root): " + r.output);
    return new SmallTmpfs(dir);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    Result r = run("umount", dir.toString());
    if (r.exit != 0) {
      throw new IOException("umount " + dir + " failed: " + r.output);
    }
  }

  private static final class Result {
    final int exit;
    final String output;

    Result(int exit, String output) {
      this.exit = exit;
      this.output = output;
    }
  }

  private static Result run(String... cmd) throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      return new Result(-1, e.toString());
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    return new Result(p.waitFor(), out);
  }
}
