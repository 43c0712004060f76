/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tiercache.bucket.alloc.Handles;
import io.tiercache.bucket.evict.Clock;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link BlockRecord}: the shared record bytes read back as written, the own byte left alone. */
class BlockRecordTest {
  private static final long SEED = 15;

  @Test
  void putThenGet_anyFieldsAnyOrder_readsBackEveryFieldAndKeepsTheOwnByte() {
    SplittableRandom r = new SplittableRandom(SEED);
    for (ByteOrder order : List.of(ByteOrder.nativeOrder(), ByteOrder.BIG_ENDIAN,
        ByteOrder.LITTLE_ENDIAN)) {
      for (int i = 0; i < 1_000; i++) {
        BlockMeta m = new BlockMeta();
        m.blockOffset = r.nextLong();
        m.length = r.nextInt();
        m.checksum = r.nextInt();
        m.flags = r.nextInt(256);
        m.deserializer = r.nextInt(256);
        m.type = r.nextInt(256);
        int at = r.nextInt(64);
        ByteBuffer buf = ByteBuffer.allocate(at + BlockRecord.SIZE + 8).order(order);
        byte own = (byte) r.nextInt(256);
        buf.put(at + BlockRecord.OWN, own);
        BlockRecord.put(buf, at, m);
        BlockMeta back = BlockRecord.get(buf, at, new BlockMeta());
        String what = order + " record " + i + " at " + at + " (seed " + SEED + ")";
        assertEquals(List.of(m.blockOffset, m.length, m.checksum, m.flags, m.deserializer,
            m.type), List.of(back.blockOffset, back.length, back.checksum, back.flags,
            back.deserializer, back.type), what);
        assertEquals(own, buf.get(at + BlockRecord.OWN), what + ": the own byte");
        assertEquals(0, buf.get(at + BlockRecord.SIZE), what + ": nothing past the record");
      }
    }
  }

  @Test
  void none_clockAndHandles_agree() {
    assertEquals(Handles.NONE, Clock.NONE);
    assertEquals(Handles.NONE, new BlockMeta().handle);
  }
}
