/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.subject;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The registry of subjects by name, in registration order (TierCache's first, then HBase's).
 * {@link #select(String)} picks subjects by a comma-separated list of names or globs
 * ({@code tiercache-*,hbase-lru}).
 *
 * <p>Concurrency: built on one thread, then read-only.
 */
public final class Subjects {
  private final Map<String, Subject> byName = new LinkedHashMap<>();

  /** Every subject this build knows: TierCache's tiers, then HBase's caches. */
  public static Subjects standard() {
    Subjects subjects = new Subjects();
    TierCacheSubjects.registerAll(subjects);
    HBaseSubjects.registerAll(subjects);
    return subjects;
  }

  /** Adds a subject; names are unique. */
  public Subjects add(Subject subject) {
    if (byName.putIfAbsent(subject.name(), subject) != null) {
      throw new IllegalArgumentException("subject '" + subject.name() + "' registered twice");
    }
    return this;
  }

  /** Adds a subject made by {@code factory}: the one line a new cache needs. */
  public Subjects add(String name, Subject.Vendor vendor, String description,
      Subject.Factory factory) {
    return add(new Subject(name, vendor, description, factory));
  }

  /** Adds a subject compared like for like with the HBase subject {@code counterpart}. */
  public Subjects add(String name, Subject.Vendor vendor, String description, String counterpart,
      Subject.Factory factory) {
    return add(new Subject(name, vendor, description, counterpart, factory));
  }

  public Collection<Subject> all() {
    return Collections.unmodifiableCollection(byName.values());
  }

  /** The subject called {@code name}. */
  public Subject get(String name) {
    Subject s = byName.get(name);
    if (s == null) {
      throw new IllegalArgumentException("no subject '" + name + "'; known: " + byName.keySet());
    }
    return s;
  }

  /**
   * The subjects matching a comma-separated list of names or globs ({@code *} matches any run of
   * characters), in registration order; {@code null} or empty selects all.
   *
   * @throws IllegalArgumentException if an entry matches nothing
   */
  public List<Subject> select(String filter) {
    if (filter == null || filter.isBlank()) {
      return new ArrayList<>(byName.values());
    }
    List<Pattern> patterns = new ArrayList<>();
    for (String entry : filter.split(",")) {
      String glob = entry.trim();
      if (glob.isEmpty()) {
        continue;
      }
      Pattern p = glob(glob);
      if (byName.keySet().stream().noneMatch(n -> p.matcher(n).matches())) {
        throw new IllegalArgumentException("no subject matches '" + glob + "'; known: "
            + byName.keySet());
      }
      patterns.add(p);
    }
    List<Subject> selected = new ArrayList<>();
    for (Subject s : byName.values()) {
      if (patterns.stream().anyMatch(p -> p.matcher(s.name()).matches())) {
        selected.add(s);
      }
    }
    return selected;
  }

  /** A regular expression for a glob where {@code *} matches any run of characters. */
  public static Pattern glob(String glob) {
    StringBuilder re = new StringBuilder();
    for (String part : glob.split("\\*", -1)) {
      if (re.length() > 0) {
        re.append(".*");
      }
      re.append(Pattern.quote(part));
    }
    return Pattern.compile(re.toString());
  }
}
