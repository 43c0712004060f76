/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;

/**
 * One configuration key: its name, type, unit, default and the values it accepts.
 *
 * <p>Every key TierCache reads is a {@code Setting} declared once in {@link CacheSettings}.
 * {@link #get(Configuration)} returns the default when the key is unset and throws
 * {@link SettingException} naming the key, the value and the accepted range when it is set to
 * something outside that range: a bad value fails at startup and is never clamped.
 *
 * @param <T> the value type
 */
public final class Setting<T> {
  private final String key;
  private final String unit;
  private final T defaultValue;
  private final String range;
  private final Function<String, T> parser;
  private final Function<T, Boolean> accepts;
  private final Function<T, String> printer;
  private final String description;

  private Setting(String key, String unit, T defaultValue, String range,
      Function<String, T> parser, Function<T, Boolean> accepts, Function<T, String> printer,
      String description) {
    this.key = Objects.requireNonNull(key);
    this.unit = unit;
    this.defaultValue = defaultValue;
    this.range = range;
    this.parser = parser;
    this.accepts = accepts;
    this.printer = printer;
    this.description = description;
  }

  /** A byte size ({@code 512m}, {@code 4g}, or plain bytes) in {@code [min, max]}. */
  public static Setting<Long> bytes(String key, long defaultValue, long min, long max,
      String description) {
    return new Setting<>(key, "bytes", defaultValue,
        "a size from " + Sizes.format(min) + " to " + Sizes.format(max)
            + " (bytes, or with a k/m/g/t suffix)",
        Sizes::parseBytes, v -> v >= min && v <= max, Sizes::format, description);
  }

  /** A fraction in {@code [min, max]}. */
  public static Setting<Double> fraction(String key, double defaultValue, double min, double max,
      String description) {
    return new Setting<>(key, "fraction", defaultValue,
        "a number from " + min + " to " + max, Double::parseDouble,
        v -> !v.isNaN() && v >= min && v <= max, String::valueOf, description);
  }

  /** An integer in {@code [min, max]}. */
  public static Setting<Integer> integer(String key, int defaultValue, int min, int max,
      String unit, String description) {
    return new Setting<>(key, unit, defaultValue, "a whole number from " + min + " to " + max,
        s -> Integer.parseInt(s.trim()), v -> v >= min && v <= max, String::valueOf,
        description);
  }

  /** {@code true} or {@code false}; anything else is an error rather than {@code false}. */
  public static Setting<Boolean> bool(String key, boolean defaultValue, String description) {
    return new Setting<>(key, "boolean", defaultValue, "true or false", Setting::parseBool,
        v -> true, String::valueOf, description);
  }

  /**
   * A size in megabytes as HBase writes {@code hbase.bucketcache.size} (a plain number, decimals
   * allowed), or in bytes with a unit suffix ({@code 4g}); returns bytes in {@code [min, max]}.
   */
  public static Setting<Long> megabytes(String key, Long defaultValue, long min, long max,
      String description) {
    return new Setting<>(key, "megabytes", defaultValue,
        "a size from " + Sizes.format(min) + " to " + Sizes.format(max)
            + " (a number of megabytes as in HBase, or bytes with a k/m/g/t suffix)",
        Setting::parseMegabytes, v -> v >= min && v <= max,
        v -> v % (1L << 20) == 0 ? Long.toString(v >> 20) : Sizes.format(v), description);
  }

  private static Long parseMegabytes(String s) {
    String t = s.trim();
    if (t.matches("[0-9]+(\\.[0-9]+)?")) {
      return (long) (Double.parseDouble(t) * (1L << 20));
    }
    return Sizes.parseBytes(t);
  }

  /** A value parsed by {@code parser} (which throws on bad input) and checked by {@code valid}. */
  public static <T> Setting<T> custom(String key, String unit, T defaultValue, String accepted,
      Function<String, T> parser, Function<T, Boolean> valid, Function<T, String> printer,
      String description) {
    return new Setting<>(key, unit, defaultValue, accepted, parser, valid, printer, description);
  }

  /** A free-form string; {@code accepted} describes what is valid for docs and errors. */
  public static Setting<String> text(String key, String defaultValue, String accepted,
      Function<String, Boolean> valid, String description) {
    return new Setting<>(key, "string", defaultValue, accepted, String::trim, valid,
        v -> v == null ? "(unset)" : v, description);
  }

  private static Boolean parseBool(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    if (t.equals("true")) {
      return Boolean.TRUE;
    }
    if (t.equals("false")) {
      return Boolean.FALSE;
    }
    throw new IllegalArgumentException("not a boolean");
  }

  /**
   * Returns the value set for this key in {@code conf}, or the default when it is unset or blank.
   *
   * @throws SettingException if the value does not parse or lies outside the accepted range
   */
  public T get(Configuration conf) {
    String raw = conf.getTrimmed(key);
    if (raw == null || raw.isEmpty()) {
      return defaultValue;
    }
    return parse(raw);
  }

  /** Returns whether {@code conf} sets this key explicitly. */
  public boolean isSet(Configuration conf) {
    String raw = conf.getTrimmed(key);
    return raw != null && !raw.isEmpty();
  }

  /** Parses and validates {@code raw} as a value of this setting. */
  public T parse(String raw) {
    T value;
    try {
      value = parser.apply(raw);
    } catch (RuntimeException e) {
      throw invalid(raw);
    }
    return check(value, raw);
  }

  /** Validates a value given programmatically (builders), with the same message as a bad key. */
  public T check(T value) {
    return check(value, value == null ? "null" : printer.apply(value));
  }

  private T check(T value, String shown) {
    if (value == null || !accepts.apply(value)) {
      throw invalid(shown);
    }
    return value;
  }

  private SettingException invalid(String shown) {
    return new SettingException(key, "'" + shown + "' is not valid; expected " + range);
  }

  public String key() {
    return key;
  }

  public String unit() {
    return unit;
  }

  public T defaultValue() {
    return defaultValue;
  }

  /** The default as written in {@code hbase-site.xml}. */
  public String defaultText() {
    return defaultValue == null ? "(unset)" : printer.apply(defaultValue);
  }

  /** The accepted values, as the error message and the docs state them. */
  public String range() {
    return range;
  }

  public String description() {
    return description;
  }

  /** Prints {@code value} the way an operator would write it. */
  public String format(T value) {
    return value == null ? "(unset)" : printer.apply(value);
  }

  @Override
  public String toString() {
    return key;
  }
}
