/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import java.util.Objects;

/**
 * An HBase 2.6 block-cache key that TierCache accepts and does not read, with the reason. Declared
 * once in {@link CacheSettings}; reported at start-up when set ({@link ConfigReport}) and listed
 * in {@code docs/configuration.md}, which a test checks against these declarations.
 */
public final class IgnoredKey {
  private final String key;
  private final String reason;

  IgnoredKey(String key, String reason) {
    this.key = Objects.requireNonNull(key);
    this.reason = Objects.requireNonNull(reason);
  }

  public String key() {
    return key;
  }

  /** Why TierCache does not read it: what the key tunes in HBase and what TierCache does instead. */
  public String reason() {
    return reason;
  }

  @Override
  public String toString() {
    return key;
  }
}
