/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import io.tiercache.core.file.Keys;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;

/**
 * Per-table lookups and hits, and the map from region to table that turns the cache's per-region
 * bytes into per-table bytes. No HBase cache reports per-table figures. On HBase 2.6 the key's
 * HFile path ({@code .../data/<namespace>/<table>/<region>/<family>/<file>}) names the table; on
 * 3.0 keys carry the encoded region name instead, which the RegionServer's online regions turn
 * into a table ({@link #resolveRegionsWith}).
 *
 * <h2>Cost on the hit path</h2>
 * {@link #lookup} is one {@link ConcurrentHashMap#get} by the key's file name (a {@code String}
 * whose hash is cached) and one or two {@link LongAdder} increments: no allocation, no lock. The
 * path is walked ({@link Keys#tableOf}, which allocates) once per file, on its first lookup or
 * insert, under this object's lock.
 *
 * <h2>Bounds</h2>
 * At most {@code maxTables} tables get their own counters; lookups of the others count under
 * {@link #OTHER}. The file and region maps are forgotten whole when they reach
 * {@code maxFiles} entries (each file is then resolved again once); a file's entry goes when
 * its blocks are evicted by name ({@link #forgetFile}).
 *
 * <h2>Concurrency</h2>
 * Any thread may call any method; the maps are concurrent, new entries are added under the lock.
 */
public final class TableStats {
  /** The table name under which tables beyond the limit, and unknown regions, are counted. */
  public static final String OTHER = "_other";

  /** A file whose region is not (yet) online here is asked about again after this long. */
  static final long RETRY_NANOS = 1_000_000_000L;

  /** One table's counters. */
  static final class Table {
    final String name;
    /** For a file whose table could not be told yet: when to ask again (else 0). */
    final long retryAt;
    final LongAdder hits = new LongAdder();
    final LongAdder requests = new LongAdder();

    Table(String name) {
      this(name, 0);
    }

    private Table(String name, long retryAt) {
      this.name = name;
      this.retryAt = retryAt;
    }

    boolean due(long now) {
      return retryAt != 0 && now - retryAt >= 0;
    }
  }

  private final int maxTables;
  private final int maxFiles;
  private final Function<BlockCacheKey, String> regionOfKey;
  private final LongSupplier clock;
  /** Encoded region name to table ({@code namespace_qualifier}), or null: HBase 3.0's route. */
  private volatile Function<String, String> regionTables;
  private final ConcurrentHashMap<String, Table> byFile = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Table> byRegion = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Table> byName = new ConcurrentHashMap<>();
  private final Table other = new Table(OTHER);
  /** The entry of a file whose keys name no table (no path): remembered, never counted. */
  private final Table unknown = new Table("");

  /**
   * @param maxTables tables with their own counters ({@code tiercache.metrics.tables.max})
   * @param maxFiles files and regions remembered before the maps are forgotten (a file whose
   *     keys carry no path is remembered too, so it is resolved once, not at every lookup)
   */
  public TableStats(int maxTables, int maxFiles) {
    this(maxTables, maxFiles, Keys::regionOf, System::nanoTime);
  }

  /**
   * With {@code regionOfKey} in place of {@link Keys#regionOf} and {@code clock} in place of
   * {@link System#nanoTime} (tests of the 3.0 route on 2.6's classes).
   */
  TableStats(int maxTables, int maxFiles, Function<BlockCacheKey, String> regionOfKey,
      LongSupplier clock) {
    this.maxTables = maxTables;
    this.maxFiles = Math.max(1, maxFiles);
    this.regionOfKey = regionOfKey;
    this.clock = clock;
  }

  /**
   * How to tell the table of a key that carries no file path but a region (HBase 3.0's keys
   * carry the encoded region name and the family, not the path): {@code regionTables} maps an
   * encoded region name to its table as {@link #nameOf} writes it, or to null when the region is
   * not online here (yet): such a file is asked about again at most once a second, and its
   * lookups are not counted until then. The RegionServer ({@code TieredRegionServer}) gives its
   * online regions; without it, path-less keys count for no table.
   */
  public void resolveRegionsWith(Function<String, String> regionTables) {
    this.regionTables = regionTables;
  }

  /** A table's name as metric names carry it: {@code namespace_qualifier}. */
  public static String nameOf(TableName table) {
    return table.getNamespaceAsString() + "_" + table.getQualifierAsString();
  }

  /** Counts a lookup of {@code key}'s table. Allocation-free once its file was seen. */
  public void lookup(BlockCacheKey key, boolean hit) {
    Table t = byFile.get(key.getHfileName());
    if (t == null || t.retryAt != 0 && t.due(clock.getAsLong())) {
      t = learn(key);
    }
    if (t == unknown || t.retryAt != 0) {
      return;
    }
    t.requests.increment();
    if (hit) {
      t.hits.increment();
    }
  }

  /** Learns the table of a block being cached, so its region's bytes count for the table. */
  public void cached(BlockCacheKey key) {
    Table t = byFile.get(key.getHfileName());
    if (t == null || t.retryAt != 0 && t.due(clock.getAsLong())) {
      learn(key);
    }
  }

  /** Forgets a file whose blocks were evicted (its region stays known). */
  public void forgetFile(String hfileName) {
    byFile.remove(hfileName);
  }

  private synchronized Table learn(BlockCacheKey key) {
    long now = clock.getAsLong();
    Table known = byFile.get(key.getHfileName());
    if (known != null && !known.due(now)) {
      return known;
    }
    String name;
    String region;
    boolean retry = false;
    try {
      name = Keys.tableOf(key);
      region = name == null ? null : regionOfKey.apply(key);
      Function<String, String> tables = regionTables;
      if (name == null && tables != null) { // HBase 3.0: the key names its region, not its path
        region = regionOfKey.apply(key);
        name = region == null ? null : tables.apply(region);
        retry = region != null && name == null;
      }
    } catch (RuntimeException e) {
      name = null; // a key whose path HBase cannot give: not counted, never a failed lookup
      region = null;
    }
    if (retry) {
      Table pending = new Table("", now + RETRY_NANOS);
      if (byFile.size() >= maxFiles) {
        byFile.clear();
      }
      byFile.put(key.getHfileName(), pending);
      return pending;
    }
    Table t = name == null ? unknown : byName.get(name);
    if (t == null) {
      if (byName.size() >= maxTables) {
        t = other;
      } else {
        t = new Table(name);
        byName.put(name, t);
      }
    }
    if (byFile.size() >= maxFiles) {
      byFile.clear();
    }
    byFile.put(key.getHfileName(), t);
    if (region != null && t != unknown) {
      if (byRegion.size() >= maxFiles) {
        byRegion.clear();
      }
      byRegion.put(region, t);
    }
    return t;
  }

  /** Tables with their own counters. */
  public int tracked() {
    return byName.size();
  }

  /**
   * Writes each table's hits, requests and hit ratio, and its cached bytes from
   * {@code regionBytes} (bytes per encoded region name; regions of no known table count under
   * {@link #OTHER}).
   */
  public void snapshot(Map<String, Long> regionBytes, MetricsOut out) {
    Map<String, long[]> rows = new TreeMap<>(); // name -> {bytes, hits, requests}
    for (Table t : byName.values()) {
      rows.put(t.name, new long[] {0, t.hits.sum(), t.requests.sum()});
    }
    long[] otherRow = {0, other.hits.sum(), other.requests.sum()};
    regionBytes.forEach((region, bytes) -> {
      Table t = byRegion.get(region);
      long[] row = t == null || t == other ? otherRow : rows.get(t.name);
      (row == null ? otherRow : row)[0] += bytes;
    });
    rows.put(OTHER, otherRow);
    out.add(Metrics.TABLES, byName.size());
    rows.forEach((name, row) -> {
      out.add(Metrics.TABLE_BYTES, row[0], name);
      out.add(Metrics.TABLE_HITS, row[1], name);
      out.add(Metrics.TABLE_REQUESTS, row[2], name);
      out.add(Metrics.TABLE_HIT_RATIO, row[2] == 0 ? 0.0 : (double) row[1] / row[2], name);
    });
  }
}
