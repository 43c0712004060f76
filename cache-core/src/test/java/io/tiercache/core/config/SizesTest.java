/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SizesTest {
  @ParameterizedTest
  @CsvSource({"1048576,1048576", "64k,65536", "64K,65536", "512m,536870912", "4g,4294967296",
      "4GB,4294967296", "1.5g,1610612736", "2t,2199023255552", " 8m ,8388608", "0,0"})
  void parseBytes_validText_returnsBytes(String text, long bytes) {
    assertEquals(bytes, Sizes.parseBytes(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "b", "m", "lots", "-1", "4x", "1.2.3g", "99999999999999999999",
      "9000000000000000t", "NaNm"})
  void parseBytes_invalidText_throwsQuotingIt(String text) {
    NumberFormatException e =
        assertThrows(NumberFormatException.class, () -> Sizes.parseBytes(text));
    assertEquals("not a size: '" + text + "'", e.getMessage());
  }

  @ParameterizedTest
  @CsvSource({"0,0", "1023,1023", "1024,1k", "65536,64k", "4294967296,4g", "1610612736,1536m", "1610612737,1.5g"})
  void format_bytes_printsShortestUnit(long bytes, String text) {
    assertEquals(text, Sizes.format(bytes));
  }
}
