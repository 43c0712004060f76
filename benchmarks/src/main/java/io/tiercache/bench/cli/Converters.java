/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.cli;

import io.tiercache.core.config.Sizes;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value types of the benchmarks' command lines that picocli does not know: byte sizes
 * ({@code 256m}, TierCache's own {@link Sizes} syntax) and durations in the units a block read is
 * measured in ({@code 500us}, {@code 1.5ms}, {@code 0}).
 *
 * <p>Concurrency: stateless.
 */
public final class Converters {
  private static final Pattern DURATION =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|µs|ms|s)?");

  private Converters() {}

  /** {@code 256m}, {@code 4g}, {@code 1048576}: bytes. */
  public static final class Bytes implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return Sizes.parseBytes(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("'" + value + "' is not a size (e.g. 256m, 4g)");
      }
    }
  }

  /** {@code 500us}, {@code 1.5ms}, {@code 200ns}, {@code 1s}, {@code 0}: nanoseconds. */
  public static final class Nanos implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      return parseNanos(value);
    }
  }

  /** Nanoseconds of a duration such as {@code 500us}; a bare number other than 0 needs a unit. */
  public static long parseNanos(String value) {
    Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches() || (m.group(2) == null && Double.parseDouble(m.group(1)) != 0)) {
      throw new TypeConversionException("'" + value + "' is not a duration (e.g. 0, 500us, 2ms)");
    }
    double n = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "ns" : m.group(2);
    switch (unit) {
      case "ns":
        return Math.round(n);
      case "us":
      case "µs":
        return Math.round(n * 1e3);
      case "ms":
        return Math.round(n * 1e6);
      default:
        return Math.round(n * 1e9);
    }
  }

  /** A duration as the shortest of {@code 0}, {@code 750ns}, {@code 500us}, {@code 2ms}. */
  public static String formatNanos(long nanos) {
    if (nanos == 0) {
      return "0";
    }
    if (nanos % 1_000_000 == 0) {
      return nanos / 1_000_000 + "ms";
    }
    if (nanos % 1_000 == 0) {
      return nanos / 1_000 + "us";
    }
    return nanos + "ns";
  }
}
