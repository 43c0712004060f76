/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import java.util.Locale;

/**
 * Parses and prints byte sizes the way operators write them in {@code hbase-site.xml}:
 * a plain number of bytes ({@code 1048576}), or a number with a binary unit suffix
 * {@code k}, {@code m}, {@code g}, {@code t}, optionally followed by {@code b}, in either case
 * ({@code 64k}, {@code 512m}, {@code 4g}, {@code 4GB}, {@code 1.5g}).
 */
public final class Sizes {
  private static final String UNITS = "kmgtp";

  private Sizes() {}

  /**
   * Returns the number of bytes {@code text} denotes.
   *
   * @throws NumberFormatException if the text is not a size; the message quotes it
   */
  public static long parseBytes(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    if (s.endsWith("b")) {
      s = s.substring(0, s.length() - 1);
    }
    if (s.isEmpty()) {
      throw new NumberFormatException("not a size: '" + text + "'");
    }
    int unit = UNITS.indexOf(s.charAt(s.length() - 1));
    long multiplier = 1;
    if (unit >= 0) {
      multiplier = 1L << (10 * (unit + 1));
      s = s.substring(0, s.length() - 1).trim();
    }
    try {
      if (s.indexOf('.') >= 0) {
        double value = Double.parseDouble(s) * multiplier;
        if (Double.isNaN(value) || value < 0 || value >= 0x1p63) {
          throw new NumberFormatException("not a size: '" + text + "'");
        }
        return (long) value;
      }
      long value = Math.multiplyExact(Long.parseLong(s), multiplier);
      if (value < 0) {
        throw new NumberFormatException("not a size: '" + text + "'");
      }
      return value;
    } catch (NumberFormatException | ArithmeticException e) {
      throw new NumberFormatException("not a size: '" + text + "'");
    }
  }

  /** Prints {@code bytes} with the largest binary unit that keeps it short, e.g. {@code 4g}. */
  public static String format(long bytes) {
    for (int unit = UNITS.length(); unit > 0; unit--) {
      long size = 1L << (10 * unit);
      if (bytes >= size && bytes % size == 0) {
        return (bytes / size) + String.valueOf(UNITS.charAt(unit - 1));
      }
    }
    for (int unit = UNITS.length(); unit > 0; unit--) {
      long size = 1L << (10 * unit);
      if (bytes >= size) {
        return String.format(Locale.ROOT, "%.1f%s", (double) bytes / size, UNITS.charAt(unit - 1));
      }
    }
    return Long.toString(bytes);
  }
}
