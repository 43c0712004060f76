/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.showdown;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A minimal streaming JSON writer, enough for the showdown's report (no dependency for one file).
 * Non-finite numbers are written as {@code null}.
 *
 * <p>Concurrency: confined to one thread.
 */
final class Json {
  private final StringBuilder out = new StringBuilder();
  /** Per open container: whether it already holds an element. */
  private final Deque<boolean[]> open = new ArrayDeque<>();
  private boolean afterName;

  Json beginObject() {
    element();
    out.append('{');
    open.push(new boolean[1]);
    return this;
  }

  Json endObject() {
    open.pop();
    out.append('}');
    return this;
  }

  Json beginArray() {
    element();
    out.append('[');
    open.push(new boolean[1]);
    return this;
  }

  Json endArray() {
    open.pop();
    out.append(']');
    return this;
  }

  Json name(String name) {
    element();
    string(name);
    out.append(':');
    afterName = true;
    return this;
  }

  Json value(String value) {
    element();
    if (value == null) {
      out.append("null");
    } else {
      string(value);
    }
    return this;
  }

  Json value(long value) {
    element();
    out.append(value);
    return this;
  }

  Json value(double value) {
    element();
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      out.append("null");
    } else {
      out.append(value);
    }
    return this;
  }

  @Override
  public String toString() {
    return out.toString();
  }

  private void element() {
    if (afterName) {
      afterName = false;
      return;
    }
    boolean[] container = open.peek();
    if (container != null) {
      if (container[0]) {
        out.append(',');
      }
      container[0] = true;
    }
  }

  private void string(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }
}
