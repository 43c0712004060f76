/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.subject;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SubjectsTest {
  private final Subjects subjects = Subjects.standard();

  @Test
  void select_globsAndNames_inRegistrationOrder() {
    List<String> names = subjects.select("hbase-lru,hbase-bucket-*").stream()
        .map(Subject::name).collect(Collectors.toList());
    assertEquals(List.of("hbase-lru", "hbase-bucket-offheap", "hbase-bucket-file",
        "hbase-bucket-mmap", "hbase-bucket-pmem"), names);
  }

  @Test
  void select_nothingMatches_namesTheKnownSubjects() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> subjects.select("nope-*"));
    assertTrue(e.getMessage().contains("hbase-lru"), e.getMessage());
  }

  @Test
  void add_sameNameTwice_fails() {
    assertThrows(IllegalArgumentException.class, () -> subjects.add("hbase-lru",
        Subject.Vendor.HBASE, "again", spec -> null));
  }

  @Test
  void standard_hasHBaseBaselines() {
    assertEquals(8, subjects.all().stream()
        .filter(s -> s.vendor() == Subject.Vendor.HBASE).count());
  }
}
