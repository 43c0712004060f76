/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tiercache.bench.footprint.Footprint;
import io.tiercache.bench.subject.Subjects;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The showdown end to end on a tiny scale (40 MB caches, a few hundred operations), so it cannot
 * rot: every subject runs, no cache serves wrong bytes, and every report file is written.
 */
class ShowdownSmokeTest {
  @Test
  void run_tinyScale_everySubjectReportsAndFilesAreWritten(@TempDir Path dir) throws Exception {
    Options o = Options.parse(new String[] {"--capacity", "40m", "--threads", "2", "--ops", "300",
        "--warmup", "200", "--scenarios", "zipf-64k-1x,hbase-mixed-1x",
        "--footprint-blocks", "2000", "--miss-latency", "0,200us", "--miss-latency-ops", "100",
        "--out", dir.resolve("out").toString(), "--data-dir", dir.resolve("data").toString(),
        "--cache-dir", dir.resolve("cache").toString()});
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    Subjects subjects = Subjects.standard();

    List<Result> results =
        Showdown.run(o, subjects, new PrintStream(console, true, StandardCharsets.UTF_8));

    assertEquals(2 * 2 * subjects.all().size(), results.size());
    for (Result r : results) {
      assertFalse(r.failed(), r.subject + " " + r.cell() + ": " + r.error);
      assertEquals(r.missLatencyNanos == 0 ? 300 : 100, r.ops, r.cell());
      assertTrue(r.optHitRatio > 0 && r.optHitRatio <= 1, r.cell() + " OPT " + r.optHitRatio);
      // The popularity bound covers the independent-read patterns only, and OPT may pass it.
      boolean zipf = r.scenario.name().startsWith("zipf");
      assertEquals(zipf, r.a0HitRatio > 0 && r.a0HitRatio <= 1, r.cell() + " a0 " + r.a0HitRatio);
      if (r.missLatencyNanos == 0) {
        assertTrue(Double.isNaN(r.missWaitNanos), r.subject);
      } else {
        assertEquals(200_000, r.missLatencyNanos);
        assertTrue(r.hitRatio == 1 || r.missWaitNanos >= 200_000,
            r.subject + " " + r.cell() + " waited " + r.missWaitNanos + " ns per miss");
        // A miss's fetch is the wait and the read: never shorter than the wait.
        assertTrue(r.hitRatio == 1 || r.fetchP99 >= 200_000,
            r.subject + " " + r.cell() + " fetch p99 " + r.fetchP99);
        assertTrue(r.hitRatio == 1 || r.fetchP999 >= r.fetchP99,
            r.subject + " " + r.cell() + " fetch p99.9 " + r.fetchP999);
      }
      // Miss times exist exactly where the measured phase missed.
      assertEquals(r.hitRatio == 1, Double.isNaN(r.insertP99), r.subject + " " + r.cell());
      assertTrue(r.hitRatio == 1 || (r.insertP50 > 0 && r.insertP50 <= r.insertP99
          && r.fetchP99 > 0), r.subject + " " + r.cell() + " insert p50 " + r.insertP50
          + ", p99 " + r.insertP99 + ", fetch p99 " + r.fetchP99);
      assertEquals(r.hitRatio == 1, Double.isNaN(r.missMeanBytes), r.subject + " " + r.cell());
      assertTrue(r.hitRatio == 1 || r.missMeanBytes > 1024, r.cell() + " " + r.missMeanBytes);
      boolean bucketCache = r.subject.startsWith("hbase-bucket") || r.subject.equals(
          "hbase-combined");
      assertEquals(bucketCache, Double.isNaN(r.bytesWrittenPerOp), r.subject + " L2 bytes/op "
          + r.bytesWrittenPerOp);
      if (r.subject.equals("hbase-lru")) {
        assertEquals(0.0, r.bytesWrittenPerOp, r.subject + ": no L2, nothing written");
      }
      assertTrue(r.hitRatio >= 0 && r.hitRatio <= 1, r.subject + " hit " + r.hitRatio);
      // Resident blocks: sampled at least as the phase starts, after the warm-up filled the cache.
      assertTrue(r.residentBlocksMean > 0 && r.residentBlocksMean <= r.residentBlocksMax,
          r.subject + " resident blocks " + r.residentBlocksMean + ", max " + r.residentBlocksMax);
      assertTrue(r.p50 > 0 && r.p50 <= r.p99 && r.p99 <= r.max, r.subject);
      assertTrue(r.allocBytesPerOp > 0, r.subject);
      assertTrue(Double.isNaN(r.scanHitRatio) && Double.isNaN(r.scanGapMean), "no scan reads");
    }
    assertTrue(results.stream().filter(r -> r.subject.equals("hbase-combined")
        && r.scenario.name().equals("hbase-mixed-1x")).allMatch(r -> r.l1HitRatio >= 0));
    Path out = dir.resolve("out");
    for (String f : new String[] {"showdown.txt", "showdown.csv", "ratios.csv", "footprint.csv",
        "p99-zipf-64k.png", "hit-hbase-mixed.png", "ops-hbase-mixed.png",
        "hit-zipf-64k-miss200us.png"}) {
      assertTrue(Files.size(out.resolve(f)) > 0, f);
    }
    JsonObject json = JsonParser.parseString(Files.readString(out.resolve("showdown.json")))
        .getAsJsonObject();
    assertEquals(results.size(), json.getAsJsonArray("results").size());
    JsonObject last = json.getAsJsonArray("results").get(results.size() - 1).getAsJsonObject();
    assertEquals("miss+200us", last.get("regime").getAsString());
    assertTrue(last.get("optHitRatio").getAsDouble() > 0);
    assertTrue(last.get("a0HitRatio").isJsonNull(), "hbase-mixed has no popularity bound");
    assertTrue(last.has("l2BytesWrittenPerOp") && last.has("missWaitNanos"));
    assertTrue(last.getAsJsonObject("missNanos").has("insertP99") && last.has("missMeanBytes"));
    assertTrue(last.getAsJsonObject("missNanos").has("fetchP999"));
    assertTrue(last.getAsJsonObject("residentBlocks").has("max"));
    assertTrue(last.getAsJsonObject("scanReads").get("hitRatio").isJsonNull());
    assertTrue(Files.readAllLines(out.resolve("showdown.csv")).get(0)
        .contains(",miss_fetch_p99_ns,miss_fetch_p999_ns,insert_p50_ns,insert_p99_ns,"
            + "miss_mean_bytes,resident_blocks_mean,resident_blocks_max,scan_hit_ratio,"
            + "scan_gap_mean,rounds,round,error"));
    assertFalse(Files.exists(out.resolve("rounds.csv")), "one round: the rows are the runs");
    for (Result r : results) {
      // Every cell's rows, in the text table, are led by its OPT row.
      assertTrue(Files.readString(out.resolve("showdown.txt")).matches("(?s).*"
          + java.util.regex.Pattern.quote(r.scenario.name()) + " +" + java.util.regex.Pattern
          .quote(r.regime()) + " +opt .*"), r.cell());
      assertEquals(r.scenario.name().startsWith("zipf"), Files.readString(
          out.resolve("showdown.txt")).matches("(?s).*" + java.util.regex.Pattern.quote(
              r.scenario.name()) + " +" + java.util.regex.Pattern.quote(r.regime()) + " +a0 .*"),
          r.cell());
    }
    assertEquals(results.size() + 1, Files.readAllLines(out.resolve("showdown.csv")).size());
    assertTrue(console.toString(StandardCharsets.UTF_8).contains("p99.9 us"));
    long l2 = subjects.all().stream().filter(Footprint::isL2).count();
    List<String> footprint = Files.readAllLines(out.resolve("footprint.csv"));
    assertEquals(l2 + 1, footprint.size(), "one footprint row per L2 subject: " + footprint);
    assertTrue(Files.readString(out.resolve("showdown.txt")).contains("shift utilisation"));
  }

  @Test
  void scanPattern_reportsTheScanReadsHitsAndHowFarApartTheScannersRun(@TempDir Path dir)
      throws Exception {
    Options o = Options.parse(new String[] {"--capacity", "40m", "--threads", "2", "--ops",
        "4000", "--warmup", "400", "--scenarios", "scan-64k-1x", "--subjects", "hbase-lru",
        "--miss-latency", "0", "--footprint-blocks", "0", "--no-charts",
        "--out", dir.resolve("out").toString(), "--data-dir", dir.resolve("data").toString(),
        "--cache-dir", dir.resolve("cache").toString()});

    Result r = Showdown.run(o, Subjects.standard(), new PrintStream(new ByteArrayOutputStream(),
        true, StandardCharsets.UTF_8)).get(0);

    assertFalse(r.failed(), r.error);
    assertTrue(r.scanHitRatio >= 0 && r.scanHitRatio <= r.hitRatio / 0.25 + 1e-9,
        "scan reads are a quarter of the reads: " + r.scanHitRatio + " of " + r.hitRatio);
    // The gap is at most half the pass, the pass half the data blocks (at most this many).
    double pass = r.datasetBytes / 65536.0 / 2;
    assertTrue(r.scanGapMean >= 0 && r.scanGapMean <= pass / 2, r.scanGapMean + " of " + pass);
    List<String> csv = Files.readAllLines(dir.resolve("out").resolve("showdown.csv"));
    List<String> header = List.of(csv.get(0).split(","));
    assertEquals(Report.fmt("%.1f", r.scanGapMean),
        csv.get(1).split(",")[header.indexOf("scan_gap_mean")]);
  }

  @Test
  void rounds_subjectsTakeTurns_andEachRowIsTheMedianOfItsRuns(@TempDir Path dir)
      throws Exception {
    Options o = Options.parse(new String[] {"--capacity", "40m", "--threads", "2", "--ops", "200",
        "--warmup", "100", "--scenarios", "zipf-64k-1x", "--subjects", "tiercache-l1,hbase-lru",
        "--rounds", "3", "--miss-latency", "0", "--footprint-blocks", "0", "--no-charts",
        "--out", dir.resolve("out").toString(), "--data-dir", dir.resolve("data").toString(),
        "--cache-dir", dir.resolve("cache").toString()});
    ByteArrayOutputStream console = new ByteArrayOutputStream();

    List<Result> results = Showdown.run(o, Subjects.standard(),
        new PrintStream(console, true, StandardCharsets.UTF_8));

    assertEquals(List.of("tiercache-l1", "hbase-lru"),
        results.stream().map(r -> r.subject).collect(Collectors.toList()));
    List<String> order = console.toString(StandardCharsets.UTF_8).lines()
        .filter(l -> l.contains("] round ")).map(l -> l.replaceAll(".*] (round \\d/3 \\S+).*",
            "$1")).collect(Collectors.toList());
    assertEquals(List.of("round 1/3 tiercache-l1", "round 1/3 hbase-lru", "round 2/3 hbase-lru",
        "round 2/3 tiercache-l1", "round 3/3 tiercache-l1", "round 3/3 hbase-lru"), order);
    List<String> runs = Files.readAllLines(dir.resolve("out").resolve("rounds.csv"));
    assertEquals(1 + 2 * 3, runs.size(), String.join("\n", runs));
    List<String> header = List.of(runs.get(0).split(","));
    int subject = header.indexOf("subject");
    int p99 = header.indexOf("p99_ns");
    int round = header.indexOf("round");
    for (Result median : results) {
      assertFalse(median.failed(), median.error);
      assertEquals(3, median.rounds);
      assertEquals(0, median.round);
      List<Long> p99s = new ArrayList<>();
      List<String> rounds = new ArrayList<>();
      for (String line : runs.subList(1, runs.size())) {
        String[] f = line.split(",");
        if (f[subject].equals(median.subject)) {
          p99s.add(Long.parseLong(f[p99]));
          rounds.add(f[round]);
        }
      }
      assertEquals(List.of("1", "2", "3"), rounds.stream().sorted().collect(Collectors.toList()));
      Collections.sort(p99s);
      assertEquals(p99s.get(1), median.p99, median.subject + " runs' p99 " + p99s);
    }
    List<String> rows = Files.readAllLines(dir.resolve("out").resolve("showdown.csv"));
    assertEquals(1 + 2, rows.size());
    assertTrue(rows.get(1).contains(",3,0,"), rows.get(1));
  }
}
