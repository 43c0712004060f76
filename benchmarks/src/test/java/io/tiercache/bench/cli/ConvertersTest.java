/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class ConvertersTest {
  @Test
  void parseNanos_units() {
    assertEquals(0, Converters.parseNanos("0"));
    assertEquals(750, Converters.parseNanos("750ns"));
    assertEquals(500_000, Converters.parseNanos("500us"));
    assertEquals(1_500_000, Converters.parseNanos("1.5ms"));
    assertEquals(2_000_000_000L, Converters.parseNanos("2s"));
  }

  @Test
  void parseNanos_bareNumberOrJunk_refused() {
    assertThrows(TypeConversionException.class, () -> Converters.parseNanos("500"));
    assertThrows(TypeConversionException.class, () -> Converters.parseNanos("5 minutes"));
  }

  @Test
  void formatNanos_roundTrips() {
    for (String s : new String[] {"0", "750ns", "500us", "2ms"}) {
      assertEquals(s, Converters.formatNanos(Converters.parseNanos(s)));
    }
  }
}
