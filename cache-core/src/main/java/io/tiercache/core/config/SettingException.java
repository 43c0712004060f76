/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

/**
 * A setting has a value TierCache cannot use. The message always names the key, the value given
 * and the accepted range, so an operator can fix {@code hbase-site.xml} without reading code.
 */
public final class SettingException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String key;

  public SettingException(String key, String message) {
    super(key + ": " + message);
    this.key = key;
  }

  /** Returns the configuration key whose value was rejected. */
  public String key() {
    return key;
  }
}
