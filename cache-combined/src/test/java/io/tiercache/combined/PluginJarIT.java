/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.combined;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The plugin jar an operator drops into {@code $HBASE_HOME/lib}: TierCache's classes (with the
 * pmem engine registered for the L2's ServiceLoader) and LLPL, and nothing HBase or Hadoop
 * provide or ship at another version; a versioned manifest; TierCache's LICENSE and NOTICE, and
 * the BSD-3-Clause licence of the LLPL it redistributes.
 */
class PluginJarIT {
  @Test
  void holdsTierCacheAndLlplOnly() throws IOException {
    List<String> foreign = new ArrayList<>();
    try (JarFile jar = new JarFile(pluginJar().toFile())) {
      for (JarEntry e : java.util.Collections.list(jar.entries())) {
        String name = e.getName();
        if (e.isDirectory() || name.startsWith("META-INF/") || name.startsWith("io/tiercache/")
            || name.startsWith("com/intel/pmem/llpl/")) {
          continue;
        }
        foreign.add(name);
      }
      assertEquals(List.of(), foreign, "entries outside TierCache and LLPL");
      for (String required : new String[] {"io/tiercache/combined/TieredBlockCache.class",
          "io/tiercache/combined/TieredRegionServer.class",
          "io/tiercache/combined/ExternalL2Cache.class", "io/tiercache/lru/LruTier.class",
          "io/tiercache/bucket/BucketTier.class", "io/tiercache/pmem/PmemEngineProvider.class",
          "com/intel/pmem/llpl/linux/amd64/libllpl.so"}) {
        assertTrue(jar.getJarEntry(required) != null, "missing " + required);
      }
      try (InputStream in = jar.getInputStream(
          jar.getJarEntry("META-INF/services/io.tiercache.bucket.engine.EngineProvider"))) {
        String services = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(services.contains("io.tiercache.pmem.PmemEngineProvider"), services);
      }
    }
  }

  @Test
  void carriesVersionAndLegalFiles() throws IOException {
    try (JarFile jar = new JarFile(pluginJar().toFile())) {
      Attributes main = jar.getManifest().getMainAttributes();
      assertEquals("TierCache plugin jar", main.getValue("Implementation-Title"));
      String version = main.getValue("Implementation-Version");
      assertTrue(version != null && pluginJar().getFileName().toString().contains(version),
          "Implementation-Version " + version + " is not the jar's version");
      assertTrue(text(jar, "META-INF/LICENSE").contains("Apache License"), "META-INF/LICENSE");
      String notice = text(jar, "META-INF/NOTICE");
      assertTrue(notice.contains("TierCache") && notice.contains("LLPL")
          && notice.contains("Intel Corporation"), notice);
      String llpl = text(jar, "META-INF/LICENSE-llpl.txt");
      assertTrue(llpl.contains("Copyright (C) 2018 Intel Corporation")
          && llpl.contains("BSD-3-Clause"), llpl);
    }
  }

  private static String text(JarFile jar, String name) throws IOException {
    JarEntry e = jar.getJarEntry(name);
    assertTrue(e != null, "missing " + name);
    try (InputStream in = jar.getInputStream(e)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Path pluginJar() throws IOException {
    try (DirectoryStream<Path> jars =
        Files.newDirectoryStream(Paths.get("target"), "tiercache-combined-*-plugin.jar")) {
      for (Path p : jars) {
        return p;
      }
    }
    throw new AssertionError("no target/tiercache-combined-*-plugin.jar: run mvn package first");
  }
}
