/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.file;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.regionserver.StoreFileInfo;

/**
 * What a block key says about where its file lives, across HBase versions: 2.6 keys read by an
 * HFile reader carry the file's path ({@code getFilePath()}, {@code .../<region>/<family>/<file>});
 * 3.0 removed it and carries the region's name instead ({@code getRegionName()}). Both are found
 * once, by name, so the same jar runs on either.
 */
public final class Keys {
  private static final MethodHandle FILE_PATH =
      find("getFilePath", MethodType.methodType(Path.class));
  private static final MethodHandle REGION_NAME =
      find("getRegionName", MethodType.methodType(String.class));

  private Keys() {}

  /** The encoded name of the region whose file {@code key} names, or null if it does not say. */
  public static String regionOf(BlockCacheKey key) {
    try {
      if (FILE_PATH != null) {
        Path file = (Path) FILE_PATH.invokeExact(key);
        return file == null ? null : regionOfFile(file);
      }
      if (REGION_NAME != null) {
        return (String) REGION_NAME.invokeExact(key);
      }
      return null;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      return null;
    }
  }

  /**
   * For a key of a reference file (a split daughter's half of its parent's HFile, named
   * {@code <parent file>.<parent region>}), the key of the same offset in the parent file, whose
   * cached blocks the daughter reads; null for any other key. As HBase's BucketCache resolves
   * references.
   */
  public static BlockCacheKey referredKey(BlockCacheKey key) {
    String name = key.getHfileName();
    if (name.indexOf('.') < 0 || !StoreFileInfo.isReference(name)) {
      return null;
    }
    String parent = StoreFileInfo.getReferredToRegionAndFile(name).getSecond();
    return new BlockCacheKey(parent, key.getOffset(), key.isPrimary(), key.getBlockType());
  }

  /**
   * The table of the file {@code key} names, as {@code namespace_qualifier} (a metric name's
   * part), or null if the key does not say (HBase 3.0 keys carry no path). Allocates: call it
   * once per file, not per lookup.
   */
  public static String tableOf(BlockCacheKey key) {
    try {
      if (FILE_PATH == null) {
        return null;
      }
      Path file = (Path) FILE_PATH.invokeExact(key);
      Path family = file == null ? null : file.getParent();
      Path region = family == null ? null : family.getParent();
      Path table = region == null ? null : region.getParent();
      Path namespace = table == null ? null : table.getParent();
      return namespace == null ? null : namespace.getName() + "_" + table.getName();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      return null;
    }
  }

  /**
   * The region of a store file's path, {@code .../<region>/<family>/<file>}, or null: what
   * {@code file.getParent().getParent().getName()} answers. Read from the path's string, since
   * each {@code Path.getParent()} builds and parses a new URI: called on every L2 publication and
   * L1 insert, that walk was 6 % of a RegionServer handler's CPU samples in {@code real-hbase} at
   * 3:1. Paths of fewer than three parts take the walk.
   */
  public static String regionOfFile(Path file) {
    String path = file.toUri().getPath(); // decoded once and kept by the URI
    int fileSlash = path.lastIndexOf('/');
    int familySlash = fileSlash > 0 ? path.lastIndexOf('/', fileSlash - 1) : -1;
    int regionSlash = familySlash > 0 ? path.lastIndexOf('/', familySlash - 1) : -1;
    if (regionSlash >= 0) {
      return path.substring(regionSlash + 1, familySlash);
    }
    Path family = file.getParent();
    Path region = family == null ? null : family.getParent();
    return region == null ? null : region.getName();
  }

  private static MethodHandle find(String name, MethodType type) {
    try {
      return MethodHandles.publicLookup().findVirtual(BlockCacheKey.class, name, type);
    } catch (NoSuchMethodException | IllegalAccessException e) {
      return null;
    }
  }
}
