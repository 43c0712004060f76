/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The BOM has no parent (importing it must not bring in the build's own dependency management),
 * so nothing in Maven keeps it in step: this test does. It names every published module, at the
 * parent's version.
 */
class BomTest {
  private static final Pattern VERSION = Pattern.compile(
      "<artifactId>tiercache-(?:parent|bom)</artifactId>\\s*<version>([^<]+)</version>");

  /** The POM at {@code path} (from the root), without its comments (the BOM's shows a usage). */
  private static String read(String path) throws IOException {
    return new String(Files.readAllBytes(Paths.get("..", path)), StandardCharsets.UTF_8)
        .replaceAll("(?s)<!--.*?-->", "");
  }

  private static String version(String pom) {
    Matcher m = VERSION.matcher(pom);
    assertTrue(m.find(), "no version");
    return m.group(1);
  }

  @Test
  void bom_namesEveryPublishedModuleAtTheParentsVersion() throws IOException {
    String parent = read("pom.xml");
    String bom = read("bom/pom.xml");
    assertEquals(version(parent), version(bom), "bom/pom.xml version");
    List<String> missing = new ArrayList<>();
    Matcher modules = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
    while (modules.find()) {
      String dir = modules.group(1);
      if (dir.equals("bom") || dir.equals("benchmarks")) {
        continue; // the BOM itself; benchmarks are not published
      }
      Matcher id = Pattern.compile("</parent>\\s*<artifactId>([^<]+)</artifactId>")
          .matcher(read(dir + "/pom.xml"));
      assertTrue(id.find(), dir);
      if (!bom.contains("<artifactId>" + id.group(1) + "</artifactId>")) {
        missing.add(id.group(1));
      }
    }
    assertEquals(List.of(), missing, "modules missing from bom/pom.xml");
  }
}
