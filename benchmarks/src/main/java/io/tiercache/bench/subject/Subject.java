/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.subject;

import java.util.Objects;
import org.apache.hadoop.hbase.io.hfile.BlockCache;

/**
 * A block cache under test, known by name ({@code tiercache-l1}, {@code hbase-lru}, ...). The
 * showdown and the JMH benchmarks build every subject through its {@link Factory}, so a new cache
 * takes part once it is registered in {@link Subjects}.
 *
 * <p>Concurrency: immutable; the factory may be called from any thread.
 */
public final class Subject {
  /** Who makes the cache: TierCache's are compared with HBase's. */
  public enum Vendor {
    TIERCACHE,
    HBASE
  }

  /** Builds a new, empty cache for a spec. */
  @FunctionalInterface
  public interface Factory {
    BlockCache create(CacheSpec spec) throws Exception;
  }

  private final String name;
  private final Vendor vendor;
  private final String description;
  private final Factory factory;
  private final String counterpart;

  public Subject(String name, Vendor vendor, String description, Factory factory) {
    this(name, vendor, description, null, factory);
  }

  /**
   * A subject compared like for like with {@code counterpart} (the HBase cache it replaces, e.g.
   * {@code hbase-bucket-offheap} for an off-heap L2), or with none if null.
   */
  public Subject(String name, Vendor vendor, String description, String counterpart,
      Factory factory) {
    if (!name.matches("[a-z0-9][a-z0-9.-]*")) {
      throw new IllegalArgumentException("subject names are lower-case words joined by '-': "
          + name);
    }
    this.name = name;
    this.vendor = Objects.requireNonNull(vendor);
    this.description = Objects.requireNonNull(description);
    this.factory = Objects.requireNonNull(factory);
    this.counterpart = counterpart;
  }

  public String name() {
    return name;
  }

  public Vendor vendor() {
    return vendor;
  }

  public String description() {
    return description;
  }

  /** The HBase subject this one is compared with like for like, or null. */
  public String counterpart() {
    return counterpart;
  }

  /** Builds a new cache; the caller shuts it down. */
  public BlockCache create(CacheSpec spec) throws Exception {
    return factory.create(spec);
  }

  @Override
  public String toString() {
    return name;
  }
}
