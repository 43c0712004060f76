/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.metrics;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One metric TierCache publishes: a name template, its kind, unit and meaning. Defined once, in
 * {@link Metrics}; {@code docs/metrics.md} lists each (a test keeps the two equal).
 *
 * <p>A template's placeholders ({@code {tier}}, {@code {size}}, {@code {table}}) are filled in
 * order by {@link MetricsOut}; {@code {tier}} is {@code l1} or {@code l2}, {@code {size}} a size
 * class in bytes, {@code {table}} a table as {@code namespace_qualifier}.
 */
public final class Metric {
  /** How a value behaves over time. */
  public enum Kind {
    /** Only grows while the cache runs (a count since start). */
    COUNTER,
    /** A current value. */
    GAUGE
  }

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{[a-z]+\\}");

  private final String template;
  private final Kind kind;
  private final String unit;
  private final String description;
  private final Pattern matcher;

  Metric(String template, Kind kind, String unit, String description) {
    this.template = template;
    this.kind = kind;
    this.unit = unit;
    this.description = description;
    this.matcher = Pattern.compile(regex(template));
  }

  /** A pattern of the template's instances: each placeholder stands for what it may hold. */
  private static String regex(String template) {
    StringBuilder sb = new StringBuilder();
    Matcher m = PLACEHOLDER.matcher(template);
    int from = 0;
    while (m.find()) {
      sb.append(Pattern.quote(template.substring(from, m.start())));
      switch (m.group()) {
        case "{tier}":
          sb.append("(l1|l2)");
          break;
        case "{size}":
          sb.append("[0-9]+");
          break;
        case "{table}":
          sb.append("[A-Za-z0-9_.-]+");
          break;
        default:
          throw new IllegalArgumentException("unknown placeholder " + m.group() + " in "
              + template);
      }
      from = m.end();
    }
    return sb.append(Pattern.quote(template.substring(from))).toString();
  }

  /** The name, with placeholders such as {@code {tier}_hitCount}. */
  public String template() {
    return template;
  }

  public Kind kind() {
    return kind;
  }

  public String unit() {
    return unit;
  }

  public String description() {
    return description;
  }

  /** Whether the name has placeholders beyond {@code {tier}} (one value per class or table). */
  public boolean isPerItem() {
    return template.contains("{size}") || template.contains("{table}");
  }

  /** Whether {@code name} is an instance of this template. */
  public boolean matches(String name) {
    return matcher.matcher(name).matches();
  }

  /** The name with {@code values} put in the placeholders, in order. */
  String fill(String... values) {
    StringBuilder sb = new StringBuilder(template.length() + 16);
    int from = 0;
    for (String v : values) {
      int open = template.indexOf('{', from);
      if (open < 0) {
        throw new IllegalArgumentException(template + " has fewer placeholders than given");
      }
      sb.append(template, from, open).append(v);
      from = template.indexOf('}', open) + 1;
    }
    if (template.indexOf('{', from) >= 0) {
      throw new IllegalArgumentException(template + " has more placeholders than given");
    }
    return sb.append(template, from, template.length()).toString();
  }

  @Override
  public String toString() {
    return template;
  }
}
