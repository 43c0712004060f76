/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** Keeps docs/configuration.md true: every key, with its default, has a row there. */
class ConfigurationDocsTest {
  @Test
  void configurationDoc_listsEveryKeyWithItsDefault() throws IOException {
    Path doc = Paths.get("..", "docs", "configuration.md");
    String text = new String(Files.readAllBytes(doc), StandardCharsets.UTF_8);
    for (Setting<?> s : CacheSettings.all()) {
      String row = text.lines().filter(l -> l.startsWith("| `" + s.key() + "`")).findFirst()
          .orElse(null);
      assertTrue(row != null, doc + " has no row for " + s.key());
      assertTrue(row.contains("`" + s.defaultText() + "`"),
          doc + " row for " + s.key() + " does not show default " + s.defaultText() + ": " + row);
    }
  }
}
