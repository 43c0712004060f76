/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.WeakHashMap;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports, at start-up, the keys of a {@link Configuration} that look like cache settings but that
 * TierCache will not apply, one log line each, so that a typo or an HBase key TierCache does not
 * read is never silently without effect:
 *
 * <ul>
 *   <li>a {@code tiercache.*} key that {@link CacheSettings} does not define: WARN, with the
 *       closest known key as a suggestion ({@code tiercache.combined.mod} suggests
 *       {@code tiercache.combined.mode});
 *   <li>an HBase key of {@link CacheSettings#ignored()} that is set: INFO, with the reason;
 *   <li>an {@code hbase.bucketcache.*} or {@code hbase.lru.*} key that is neither read nor known
 *       as ignored (a typo, or a key of another HBase version): WARN, with a suggestion.
 * </ul>
 *
 * <p>A key counts as set when some source other than {@code hbase-default.xml} gives it a value,
 * so HBase's own defaults are never reported. Nothing here rejects a configuration: bad values of
 * known keys are {@link Setting}'s business.
 *
 * <p>Threads: {@link #logOnce} may be called from any thread. The combined cache, its L1 and its
 * L2 each call it with the same {@code Configuration}; the instances already reported are kept
 * (weakly, by identity) so each line appears once per configuration.
 */
public final class ConfigReport {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigReport.class);
  private static final String[] PREFIXES = {"tiercache.", "hbase.bucketcache.", "hbase.lru."};

  /** Configurations already reported; guarded by itself. */
  private static final Map<Configuration, Boolean> REPORTED = new WeakHashMap<>();

  private ConfigReport() {}

  /** One finding: the key, whether it is a warning, and the line to log. */
  public static final class Finding {
    private final String key;
    private final boolean warning;
    private final String message;

    Finding(String key, boolean warning, String message) {
      this.key = key;
      this.warning = warning;
      this.message = message;
    }

    public String key() {
      return key;
    }

    /** True for a key that is probably a mistake (unknown); false for a known, ignored key. */
    public boolean warning() {
      return warning;
    }

    public String message() {
      return message;
    }

    @Override
    public String toString() {
      return (warning ? "WARN " : "INFO ") + message;
    }
  }

  /**
   * Logs the findings of {@code conf} unless this instance was reported before; returns
   * {@code conf}, so a constructor can report before it validates:
   * {@code this(Config.from(ConfigReport.logOnce(conf)))}.
   */
  public static Configuration logOnce(Configuration conf) {
    synchronized (REPORTED) {
      if (REPORTED.put(conf, Boolean.TRUE) != null) {
        return conf;
      }
    }
    for (Finding f : findings(conf)) {
      if (f.warning()) {
        LOG.warn(f.message());
      } else {
        LOG.info(f.message());
      }
    }
    return conf;
  }

  /** The findings for {@code conf}, in key order. */
  public static List<Finding> findings(Configuration conf) {
    Set<String> known = new TreeSet<>();
    CacheSettings.all().forEach(s -> known.add(s.key()));
    List<String> candidates = new ArrayList<>(known);
    CacheSettings.ignored().forEach(k -> candidates.add(k.key()));
    Set<String> keys = new TreeSet<>();
    CacheSettings.ignored().forEach(k -> keys.add(k.key())); // hfile.block.cache.policy too
    for (String prefix : PREFIXES) {
      for (String rest : conf.getPropsWithPrefix(prefix).keySet()) {
        keys.add(prefix + rest);
      }
    }
    List<Finding> out = new ArrayList<>();
    for (String key : keys) {
      if (known.contains(key) || !setByOperator(conf, key)) {
        continue;
      }
      IgnoredKey ignored = CacheSettings.ignoredKey(key);
      if (ignored != null) {
        out.add(new Finding(key, false, key + " is set and ignored: TierCache does not read it. "
            + ignored.reason()));
      } else if (key.startsWith("tiercache.")) {
        out.add(new Finding(key, true, key + " is not a TierCache setting and is ignored; did "
            + "you mean " + closest(key, candidates) + "? (every key: docs/configuration.md)"));
      } else {
        out.add(new Finding(key, true, key + " is not an HBase 2.6 block-cache key that TierCache "
            + "reads or knows, and is ignored; did you mean " + closest(key, candidates)
            + "? (every key: docs/configuration.md)"));
      }
    }
    return Collections.unmodifiableList(out);
  }

  private static boolean setByOperator(Configuration conf, String key) {
    String value = conf.get(key);
    if (value == null) {
      return false;
    }
    String[] sources = conf.getPropertySources(key);
    if (sources == null) {
      return true;
    }
    for (String source : sources) {
      if (!source.equals("hbase-default.xml")) {
        return true;
      }
    }
    return false;
  }

  /** The candidate with the least edit distance to {@code key} (the first on a tie). */
  static String closest(String key, List<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String c : candidates) {
      int d = distance(key, c);
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance: insertions, deletions and substitutions, each 1. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int subst = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(subst, Math.min(prev[j], cur[j - 1]) + 1);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
