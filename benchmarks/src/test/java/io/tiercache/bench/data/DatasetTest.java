/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetTest {
  private static final long MB = 1 << 20;

  @Test
  void layout_sameSeed_sameBlocks() {
    BlockLayout a = new BlockLayout(BlockSizes.MIXED, 4 * MB, 16 * MB, 5);
    BlockLayout b = new BlockLayout(BlockSizes.MIXED, 4 * MB, 16 * MB, 5);
    assertEquals(a.blockCount(), b.blockCount());
    for (int id = 0; id < a.blockCount(); id++) {
      assertEquals(a.position(id), b.position(id));
      assertEquals(a.payload(id), b.payload(id));
      assertEquals(a.tag(id), b.tag(id));
    }
    assertTrue(a.totalBytes() >= 16 * MB);
  }

  @Test
  void layout_everyDataBlock_hasIndexAndBloomOfItsFile() {
    BlockLayout layout = new BlockLayout(BlockSizes.FIXED_64K, 10 * MB, 30 * MB, 1);
    int data = layout.dataBlocksOfFiles(layout.fileCount());
    for (int o = 0; o < data; o++) {
      int id = layout.dataBlock(o);
      assertEquals(BlockType.DATA, layout.type(id));
      assertEquals(BlockType.LEAF_INDEX, layout.type(layout.indexBlockOf(o)));
      assertEquals(BlockType.BLOOM_CHUNK, layout.type(layout.bloomBlockOf(o)));
      assertEquals(layout.fileOf(id), layout.fileOf(layout.indexBlockOf(o)));
      assertEquals(layout.fileOf(id), layout.fileOf(layout.bloomBlockOf(o)));
    }
    for (int id = 1; id < layout.blockCount(); id++) {
      assertEquals(layout.position(id - 1) + layout.onDiskSize(id - 1), layout.position(id));
    }
  }

  @Test
  void layout_filesFor_isTheShortestPrefix() {
    BlockLayout layout = new BlockLayout(BlockSizes.FIXED_64K, 4 * MB, 40 * MB, 1);
    int files = layout.filesFor(12 * MB);
    assertTrue(layout.bytesOfFiles(files) >= 12 * MB);
    assertTrue(layout.bytesOfFiles(files - 1) < 12 * MB);
  }

  @Test
  void read_afterWrite_givesTheBlockWithItsHeader(@TempDir Path dir) throws Exception {
    BlockLayout layout = new BlockLayout(BlockSizes.MIXED, 2 * MB, 4 * MB, 9);
    try (Dataset dataset = Dataset.open(layout, dir)) {
      assertEquals(layout.totalBytes(), Files.size(dataset.path()));
      for (int id = 0; id < layout.blockCount(); id++) {
        HFileBlock block = dataset.read(id);
        try {
          assertTrue(dataset.verify(id, block), "block " + id);
          assertEquals(layout.type(id), block.getBlockType());
          assertEquals(layout.offset(id), block.getOffset());
          assertEquals(layout.onDiskSize(id), block.getOnDiskSizeWithHeader());
          assertFalse(id > 0 && dataset.verify(id - 1, block));
        } finally {
          block.release();
        }
      }
    }
  }

  /**
   * A scenario's files are a prefix of the dataset file, so warming its bytes reads exactly its
   * blocks; past the end, the whole file.
   */
  @Test
  void warm_readsTheScenarioPrefix_orTheWholeFile(@TempDir Path dir) throws Exception {
    BlockLayout layout = new BlockLayout(BlockSizes.MIXED, 2 * MB, 8 * MB, 9);
    try (Dataset dataset = Dataset.open(layout, dir)) {
      assertTrue(layout.fileCount() > 2, "files " + layout.fileCount());
      long twoFiles = layout.bytesOfFiles(2);
      assertEquals(twoFiles, layout.position(layout.firstBlockOf(2)),
          "the third file starts where the first two end");
      assertEquals(twoFiles, dataset.warm(twoFiles));
      assertEquals(Files.size(dataset.path()), dataset.warm(Long.MAX_VALUE));
      assertEquals(0, dataset.warm(0));
    }
  }

  @Test
  void open_secondTime_reusesTheFile(@TempDir Path dir) throws Exception {
    BlockLayout layout = new BlockLayout(BlockSizes.FIXED_64K, MB, 2 * MB, 3);
    Path path;
    long modified;
    try (Dataset first = Dataset.open(layout, dir)) {
      path = first.path();
      modified = Files.getLastModifiedTime(path).toMillis();
    }
    try (Dataset second = Dataset.open(layout, dir)) {
      assertEquals(path, second.path());
      assertEquals(modified, Files.getLastModifiedTime(path).toMillis());
      HFileBlock block = second.read(0);
      byte[] header = new byte[BlockLayout.HEADER];
      block.getBufferReadOnly().get(header);
      block.release();
      HFileBlock again = second.read(0);
      byte[] header2 = new byte[BlockLayout.HEADER];
      again.getBufferReadOnly().get(header2);
      again.release();
      assertArrayEquals(header, header2);
    }
  }
}
