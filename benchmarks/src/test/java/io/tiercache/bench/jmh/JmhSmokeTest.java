/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bench.subject.Subject;
import io.tiercache.bench.subject.Subjects;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmh.annotations.Param;

/**
 * Each JMH benchmark's setup, a few hundred calls of its methods and its teardown, per subject,
 * without JMH's harness (which never runs in tests): enough that a benchmark cannot rot.
 */
class JmhSmokeTest {
  private static final String CAPACITY = "40m";
  private static final int CALLS = 300;

  static Stream<String> subjects() throws Exception {
    return Arrays.stream(subjectParam(HitBenchmark.class));
  }

  @Test
  void everyBenchmark_paramsNameEveryRegisteredSubject() throws Exception {
    List<String> registered = Subjects.standard().all().stream().map(Subject::name).sorted()
        .collect(Collectors.toList());
    for (Class<?> c : List.of(HitBenchmark.class, InsertBenchmark.class, MixedBenchmark.class,
        ChurnBenchmark.class, EvictByFileBenchmark.class)) {
      List<String> params = Arrays.stream(subjectParam(c)).sorted().collect(Collectors.toList());
      assertEquals(registered, params, c.getSimpleName() + " @Param(subject) vs Subjects");
    }
  }

  @ParameterizedTest
  @MethodSource("subjects")
  void hit_residentBlocks_hitOnBothMethods(String subject) throws Exception {
    HitBenchmark b = new HitBenchmark();
    b.subject = subject;
    b.capacity = CAPACITY;
    b.setUp();
    try {
      HitBenchmark.Cursor c = new HitBenchmark.Cursor();
      c.setUp();
      int hits = 0;
      for (int i = 0; i < CALLS; i++) {
        hits += b.hit1(c) > 0 ? 1 : 0;
        hits += b.hit2(c) > 0 ? 1 : 0;
      }
      assertTrue(hits > 0, subject + " never hit a resident block");
    } finally {
      b.tearDown();
    }
  }

  @ParameterizedTest
  @MethodSource("subjects")
  void insertMixedChurn_fewCalls_run(String subject) throws Exception {
    InsertBenchmark insert = new InsertBenchmark();
    insert.subject = subject;
    insert.capacity = CAPACITY;
    insert.setUp();
    try {
      for (int i = 0; i < CALLS; i++) {
        insert.insert();
      }
    } finally {
      insert.tearDown();
    }
    MixedBenchmark mixed = new MixedBenchmark();
    mixed.subject = subject;
    mixed.capacity = CAPACITY;
    mixed.setUp();
    try {
      MixedBenchmark.Draw d = new MixedBenchmark.Draw();
      d.setUp();
      for (int i = 0; i < CALLS; i++) {
        mixed.mixed(d);
      }
    } finally {
      mixed.tearDown();
    }
    ChurnBenchmark churn = new ChurnBenchmark();
    churn.subject = subject;
    churn.capacity = CAPACITY;
    churn.setUp();
    try {
      ChurnBenchmark.Draw d = new ChurnBenchmark.Draw();
      d.setUp();
      for (int i = 0; i < CALLS; i++) {
        churn.churn(d);
      }
    } finally {
      churn.tearDown();
    }
  }

  @ParameterizedTest
  @MethodSource("subjects")
  void evictByFile_afterRefill_evictsTheFilesBlocks(String subject) throws Exception {
    EvictByFileBenchmark b = new EvictByFileBenchmark();
    b.subject = subject;
    b.capacity = CAPACITY;
    b.setUp();
    try {
      b.refill();
      int evicted = 0;
      for (int i = 0; i < EvictByFileBenchmark.FILES; i++) {
        evicted += b.evictFile();
      }
      assertTrue(evicted > 0, subject + " evicted nothing");
    } finally {
      b.tearDown();
    }
  }

  private static String[] subjectParam(Class<?> benchmark) throws Exception {
    return benchmark.getField("subject").getAnnotation(Param.class).value();
  }
}
