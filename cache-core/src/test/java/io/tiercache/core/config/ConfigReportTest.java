/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Unknown and ignored keys are reported, one line each; known and default-only keys are not. */
class ConfigReportTest {
  private static ConfigReport.Finding only(Configuration conf) {
    List<ConfigReport.Finding> f = ConfigReport.findings(conf);
    assertEquals(1, f.size(), f.toString());
    return f.get(0);
  }

  @Test
  void findings_tiercacheTypo_warnsWithTheClosestKey() {
    Configuration conf = new Configuration(false);
    conf.set("tiercache.combined.mod", "exclusive");
    ConfigReport.Finding f = only(conf);
    assertTrue(f.warning());
    assertEquals("tiercache.combined.mod", f.key());
    assertTrue(f.message().contains("did you mean tiercache.combined.mode?"), f.message());
  }

  @Test
  void findings_ignoredHBaseKey_isInfoWithTheReason() {
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.acceptfactor", "0.9");
    ConfigReport.Finding f = only(conf);
    assertFalse(f.warning());
    assertTrue(f.message().startsWith("hbase.bucketcache.acceptfactor is set and ignored"),
        f.message());
    assertTrue(f.message().endsWith(
        CacheSettings.ignoredKey("hbase.bucketcache.acceptfactor").reason()), f.message());
  }

  @Test
  void findings_unknownHBaseCacheKey_warnsWithTheClosestKey() {
    Configuration conf = new Configuration(false);
    conf.set("hbase.bucketcache.writer.thread", "4");
    ConfigReport.Finding f = only(conf);
    assertTrue(f.warning());
    assertTrue(f.message().contains("did you mean hbase.bucketcache.writer.threads?"),
        f.message());
  }

  @Test
  void findings_knownKeysAndOtherKeys_areNotReported() {
    Configuration conf = new Configuration(false);
    for (Setting<?> s : CacheSettings.all()) {
      conf.set(s.key(), s.defaultText());
    }
    conf.set("hbase.regionserver.handler.count", "30");
    conf.set("tiercacheish.key", "1");
    assertEquals(List.of(), ConfigReport.findings(conf));
  }

  @Test
  void findings_keysOnlyFromHBaseDefaults_areNotReported() {
    Configuration conf = new Configuration(false);
    String xml = "<configuration><property><name>hfile.block.cache.policy</name>"
        + "<value>LRU</value></property><property><name>hbase.lru.blockcache.min.factor</name>"
        + "<value>0.95</value></property></configuration>";
    conf.addResource(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)),
        "hbase-default.xml");
    assertEquals(List.of(), ConfigReport.findings(conf));
    conf.set("hbase.lru.blockcache.min.factor", "0.9"); // now the operator's
    assertEquals("hbase.lru.blockcache.min.factor", only(conf).key());
  }

  @Test
  void findings_everyIgnoredKey_oneLineEach() {
    Configuration conf = new Configuration(false);
    CacheSettings.ignored().forEach(k -> conf.set(k.key(), "1"));
    List<String> keys = ConfigReport.findings(conf).stream().map(ConfigReport.Finding::key)
        .sorted().collect(Collectors.toList());
    List<String> expected = CacheSettings.ignored().stream().map(IgnoredKey::key).sorted()
        .collect(Collectors.toList());
    assertEquals(expected, keys);
  }

  @Test
  void registry_noKeyIsBothReadAndIgnored() {
    for (Setting<?> s : CacheSettings.all()) {
      assertEquals(null, CacheSettings.ignoredKey(s.key()), s.key());
    }
  }

  @Test
  void distance_isLevenshtein() {
    assertEquals(0, ConfigReport.distance("abc", "abc"));
    assertEquals(1, ConfigReport.distance("tiercache.combined.mod", "tiercache.combined.mode"));
    assertEquals(3, ConfigReport.distance("kitten", "sitting"));
  }
}
