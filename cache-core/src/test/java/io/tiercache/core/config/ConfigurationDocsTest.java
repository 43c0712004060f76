/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/configuration.md true to {@link CacheSettings}, the one place keys are defined.
 *
 * <p>A setting's row reads {@code | `key` | unit | `default` | accepted | meaning |}: the unit,
 * default and accepted values are exactly the registry's (the accepted text is the one a bad
 * value's error message shows), and the meaning starts with the registry's description (the doc
 * may add detail after it). A row of the "keys TierCache does not read" tables reads
 * {@code | `key`, `key` | why |}, and the why is exactly the registry's reason, which is also the
 * start-up log line. Every failure prints the row as it should start, to paste.
 */
class ConfigurationDocsTest {
  private static final Path DOC = Paths.get("..", "docs", "configuration.md");
  private static final Pattern KEY = Pattern.compile("`([a-z0-9.]+)`");

  /**
   * Settings rows (five cells), and ignored-key rows (two cells, under a heading that says
   * "does not read"), by their first cell.
   */
  private static final Map<String, String[]> SETTING_ROWS = new LinkedHashMap<>();
  private static final Map<String, String[]> IGNORED_ROWS = new LinkedHashMap<>();

  @BeforeAll
  static void readDoc() throws IOException {
    String text = new String(Files.readAllBytes(DOC), StandardCharsets.UTF_8);
    String heading = "";
    for (String line : text.split("\n")) {
      if (line.startsWith("#")) {
        heading = line;
      }
      if (!line.startsWith("| `") || !line.endsWith(" |")) {
        continue;
      }
      String[] cells = line.substring(2, line.length() - 2).split(" \\| ", -1);
      if (cells.length == 5) {
        SETTING_ROWS.put(cells[0], cells);
      } else if (cells.length == 2 && heading.contains("does not read")) {
        IGNORED_ROWS.put(cells[0], cells);
      }
    }
  }

  @Test
  void everySetting_hasARowWithTheRegistrysUnitDefaultRangeAndDescription() {
    List<String> problems = new ArrayList<>();
    for (Setting<?> s : CacheSettings.all()) {
      String expected = "`" + s.key() + "` | " + s.unit() + " | `" + s.defaultText() + "` | "
          + s.range() + " | " + s.description();
      String[] row = SETTING_ROWS.get("`" + s.key() + "`");
      if (row == null || !String.join(" | ", row).startsWith(expected)) {
        problems.add((row == null ? "no row for " : "row differs from the registry for ")
            + s.key() + "; it should start:\n| " + expected);
      }
    }
    assertEquals("", String.join("\n", problems), DOC + " drifted from CacheSettings");
  }

  @Test
  void everySettingsRow_namesADefinedSetting() {
    List<String> unknown = new ArrayList<>();
    for (String first : SETTING_ROWS.keySet()) {
      String key = first.substring(1, first.length() - 1);
      if (CacheSettings.all().stream().noneMatch(s -> s.key().equals(key))) {
        unknown.add(key);
      }
    }
    assertEquals(List.of(), unknown, DOC + " documents keys CacheSettings does not define");
  }

  @Test
  void everyIgnoredKey_isListedWithTheRegistrysReason() {
    List<String> problems = new ArrayList<>();
    for (IgnoredKey k : CacheSettings.ignored()) {
      String[] row = null;
      for (Map.Entry<String, String[]> e : IGNORED_ROWS.entrySet()) {
        if (keysOf(e.getKey()).contains(k.key())) {
          row = e.getValue();
        }
      }
      if (row == null || !row[1].equals(k.reason())) {
        problems.add((row == null ? "no row for " : "reason differs from the registry for ")
            + k.key() + "; it should read:\n| `" + k.key() + "` | " + k.reason() + " |");
      }
    }
    assertEquals("", String.join("\n", problems), DOC + " drifted from CacheSettings.ignored()");
  }

  @Test
  void everyIgnoredRow_namesOnlyIgnoredKeys() {
    List<String> unknown = new ArrayList<>();
    for (String first : IGNORED_ROWS.keySet()) {
      for (String key : keysOf(first)) {
        if (CacheSettings.ignoredKey(key) == null) {
          unknown.add(key);
        }
      }
    }
    assertEquals(List.of(), unknown, DOC + " lists as not read keys CacheSettings does not");
  }

  private static List<String> keysOf(String cell) {
    List<String> keys = new ArrayList<>();
    Matcher m = KEY.matcher(cell);
    while (m.find()) {
      keys.add(m.group(1));
    }
    return keys;
  }
}
