/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The commit a run was made from, for reports and chart subtitles: {@code git rev-parse} in the
 * working directory (the benchmarks are run from the repository root), with {@code +dirty} when
 * the work tree has changes, or {@code unknown} outside a git checkout. The build has no git
 * plugin to stamp the jar, so a jar run from elsewhere reports that directory's commit.
 *
 * <p>Concurrency: stateless; the answer is computed once.
 */
public final class Git {
  private static volatile String commit;

  private Git() {}

  /** The short commit id of the working directory's checkout, or {@code unknown}. */
  public static String commit() {
    String c = commit;
    if (c == null) {
      String head = run("git", "rev-parse", "--short", "HEAD");
      if (head == null || head.isEmpty()) {
        c = "unknown";
      } else {
        String status = run("git", "status", "--porcelain", "--untracked-files=no");
        c = status == null || status.isEmpty() ? head : head + "+dirty";
      }
      commit = c;
    }
    return c;
  }

  private static String run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try (InputStream in = p.getInputStream()) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
          p.destroy();
          return null;
        }
        return text;
      }
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
