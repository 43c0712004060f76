/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.meta;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.hbase.io.hfile.CacheableDeserializerIdManager;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;

/**
 * HBase hands out deserializer ids per JVM, in registration order, so a record that outlives the
 * JVM (a checkpoint, a durable record) keeps the deserializer's class name and is mapped back to
 * this JVM's id when read. The one place that mapping is made.
 *
 * <p>Stateless and thread safe.
 */
public final class Deserializers {
  private Deserializers() {}

  /** This JVM's deserializer ids by class name, HBase's own block deserializer included. */
  public static Map<String, Integer> idsByName() {
    // Make sure HBase's block deserializer has registered its id in this JVM.
    HFileBlock.BLOCK_DESERIALIZER.getDeserializerIdentifier();
    Map<String, Integer> now = new HashMap<>();
    for (Map.Entry<Integer, String> e : CacheableDeserializerIdManager.save().entrySet()) {
      now.put(e.getValue(), e.getKey());
    }
    return now;
  }

  /**
   * Maps the keys of {@code saved} (an id, or a table index, to the class name saved with it) to
   * this JVM's ids; names this JVM does not know are left out.
   */
  public static Map<Integer, Integer> remap(Map<Integer, String> saved) {
    Map<String, Integer> now = idsByName();
    Map<Integer, Integer> out = new HashMap<>();
    for (Map.Entry<Integer, String> e : saved.entrySet()) {
      Integer id = e.getValue() == null ? null : now.get(e.getValue());
      if (id != null) {
        out.put(e.getKey(), id);
      }
    }
    return out;
  }
}
