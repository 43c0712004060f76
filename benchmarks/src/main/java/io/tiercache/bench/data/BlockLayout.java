/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.data;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.io.hfile.BlockType;

/**
 * Where every block of a synthetic set of HFiles lives: which file, at which offset, how large, of
 * which type. Built from a seed alone, so the same arguments give the same layout in every run.
 *
 * <p>Each HFile is laid out as HBase's writer lays it out: data blocks in key order, with inline
 * blocks written after the data they cover — a {@link BlockType#BLOOM_CHUNK} after every
 * {@value #DATA_PER_BLOOM} data blocks and a {@link BlockType#LEAF_INDEX} block after every
 * {@value #DATA_PER_INDEX}. A get on a data block therefore also reads one index and one bloom
 * block of its file, and those meta blocks are about 1.2 % of the bytes (64 KB data blocks).
 *
 * <p>All files are concatenated into one physical file; {@link #position(int)} is a block's
 * offset in it. Files are added until the set holds {@code totalBytes}, so a set built for the
 * largest database:cache ratio serves every smaller ratio as a prefix of its files
 * ({@link #filesFor(long)}).
 *
 * <p>Concurrency: immutable after construction; any thread may read it.
 */
public final class BlockLayout {
  /** Data blocks covered by one bloom chunk. */
  public static final int DATA_PER_BLOOM = 64;
  /** Data blocks covered by one leaf index block. */
  public static final int DATA_PER_INDEX = 128;
  /** Payload of a bloom chunk. */
  static final int BLOOM_PAYLOAD = 32 * 1024;
  /** Payload of a leaf index block. */
  static final int INDEX_PAYLOAD = 32 * 1024;
  /** HBase's block header, checksum fields included. */
  public static final int HEADER = HConstants.HFILEBLOCK_HEADER_SIZE;

  private static final BlockType[] TYPES =
      {BlockType.DATA, BlockType.LEAF_INDEX, BlockType.BLOOM_CHUNK};

  private final BlockSizes sizes;
  private final long seed;
  private final String[] fileNames;
  /** Per file f, blocks [fileFirstBlock[f], fileFirstBlock[f + 1]). */
  private final int[] fileFirstBlock;
  /** Per file f, data ordinals [fileFirstData[f], fileFirstData[f + 1]). */
  private final int[] fileFirstData;
  /** Per file f, bytes of files [0, f] together. */
  private final long[] bytesThroughFile;
  private final int[] file;
  private final long[] offset;
  private final long[] position;
  private final int[] payload;
  private final byte[] type;
  private final long[] prevOffset;
  private final int[] dataBlock;
  private final int[] indexOf;
  private final int[] bloomOf;

  /**
   * Lays out files of about {@code fileDataBytes} of data each until the set holds at least
   * {@code totalBytes}.
   */
  public BlockLayout(BlockSizes sizes, long fileDataBytes, long totalBytes, long seed) {
    if (fileDataBytes <= 0 || totalBytes <= 0) {
      throw new IllegalArgumentException("sizes must be positive: file=" + fileDataBytes
          + " total=" + totalBytes);
    }
    this.sizes = sizes;
    this.seed = seed;
    SplittableRandom random = new SplittableRandom(seed);
    Builder b = new Builder();
    long total = 0;
    int f = 0;
    while (total < totalBytes) {
      total += b.addFile(f++, sizes, fileDataBytes, random);
    }
    int files = f;
    this.fileNames = new String[files];
    for (int i = 0; i < files; i++) {
      fileNames[i] = Blocks.fileName(seed, i);
    }
    this.fileFirstBlock = Arrays.copyOf(b.fileFirstBlock, files + 1);
    this.fileFirstData = Arrays.copyOf(b.fileFirstData, files + 1);
    this.bytesThroughFile = Arrays.copyOf(b.bytesThroughFile, files);
    int n = b.blocks;
    this.file = Arrays.copyOf(b.file, n);
    this.offset = Arrays.copyOf(b.offset, n);
    this.position = Arrays.copyOf(b.position, n);
    this.payload = Arrays.copyOf(b.payload, n);
    this.type = Arrays.copyOf(b.type, n);
    this.prevOffset = Arrays.copyOf(b.prevOffset, n);
    this.dataBlock = Arrays.copyOf(b.dataBlock, b.data);
    this.indexOf = Arrays.copyOf(b.indexOf, b.data);
    this.bloomOf = Arrays.copyOf(b.bloomOf, b.data);
  }

  public BlockSizes sizes() {
    return sizes;
  }

  public long seed() {
    return seed;
  }

  public int fileCount() {
    return fileNames.length;
  }

  public int blockCount() {
    return file.length;
  }

  /** Bytes of the whole physical file. */
  public long totalBytes() {
    return bytesThroughFile[bytesThroughFile.length - 1];
  }

  /** The fewest leading files that hold at least {@code bytes}, or all of them. */
  public int filesFor(long bytes) {
    for (int f = 0; f < bytesThroughFile.length; f++) {
      if (bytesThroughFile[f] >= bytes) {
        return f + 1;
      }
    }
    return bytesThroughFile.length;
  }

  /** Bytes held by the first {@code files} files. */
  public long bytesOfFiles(int files) {
    return bytesThroughFile[files - 1];
  }

  /** Data blocks in the first {@code files} files; their ordinals are {@code [0, result)}. */
  public int dataBlocksOfFiles(int files) {
    return fileFirstData[files];
  }

  /** Blocks (any type) in the first {@code files} files; their ids are {@code [0, result)}. */
  public int blocksOfFiles(int files) {
    return fileFirstBlock[files];
  }

  /** The block id of the data block with this ordinal. */
  public int dataBlock(int ordinal) {
    return dataBlock[ordinal];
  }

  /** The leaf index block a get on data block {@code ordinal} reads first. */
  public int indexBlockOf(int ordinal) {
    return indexOf[ordinal];
  }

  /** The bloom chunk a get on data block {@code ordinal} checks. */
  public int bloomBlockOf(int ordinal) {
    return bloomOf[ordinal];
  }

  public int fileOf(int id) {
    return file[id];
  }

  public String fileName(int fileIndex) {
    return fileNames[fileIndex];
  }

  /** The block's offset inside its HFile: the offset in its cache key. */
  public long offset(int id) {
    return offset[id];
  }

  /** The block's offset in the physical file. */
  public long position(int id) {
    return position[id];
  }

  /** Bytes after the header. */
  public int payload(int id) {
    return payload[id];
  }

  /** Bytes on disk, header included. */
  public int onDiskSize(int id) {
    return HEADER + payload[id];
  }

  public BlockType type(int id) {
    return TYPES[type[id]];
  }

  /** The offset of the previous block of the same type in the file, or -1. */
  public long prevOffset(int id) {
    return prevOffset[id];
  }

  /** On-disk size of the next block of the file, or -1 for the last one. */
  public int nextOnDiskSize(int id) {
    int next = id + 1;
    return next < file.length && file[next] == file[id] ? onDiskSize(next) : -1;
  }

  /** The first block id of a file. */
  public int firstBlockOf(int fileIndex) {
    return fileFirstBlock[fileIndex];
  }

  /** A value fixed by (seed, id) that the block's payload starts with. */
  public long tag(int id) {
    long z = seed + (id + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Grows the per-block arrays while files are added. */
  private static final class Builder {
    int blocks;
    int data;
    long physical;
    int[] fileFirstBlock = new int[16];
    int[] fileFirstData = new int[16];
    long[] bytesThroughFile = new long[16];
    int[] file = new int[1024];
    long[] offset = new long[1024];
    long[] position = new long[1024];
    int[] payload = new int[1024];
    byte[] type = new byte[1024];
    long[] prevOffset = new long[1024];
    int[] dataBlock = new int[1024];
    int[] indexOf = new int[1024];
    int[] bloomOf = new int[1024];

    /** Adds one file and returns its bytes. */
    long addFile(int f, BlockSizes sizes, long fileDataBytes, SplittableRandom random) {
      if (f + 2 > fileFirstBlock.length) {
        fileFirstBlock = Arrays.copyOf(fileFirstBlock, 2 * (f + 2));
        fileFirstData = Arrays.copyOf(fileFirstData, 2 * (f + 2));
        bytesThroughFile = Arrays.copyOf(bytesThroughFile, 2 * (f + 2));
      }
      fileFirstBlock[f] = blocks;
      fileFirstData[f] = data;
      long start = physical;
      long fileOffset = 0;
      long[] prev = {-1, -1, -1};
      long dataBytes = 0;
      int firstOrdinal = data;
      int inFile = 0;
      while (dataBytes < fileDataBytes) {
        int p = sizes.nextPayload(random);
        int id = add(f, fileOffset, p, 0, prev);
        fileOffset += HEADER + p;
        dataBytes += p;
        ensureData();
        dataBlock[data++] = id;
        inFile++;
        if (inFile % DATA_PER_BLOOM == 0) {
          fileOffset += addInline(f, fileOffset, 2, prev, firstOrdinal, inFile, DATA_PER_BLOOM);
        }
        if (inFile % DATA_PER_INDEX == 0) {
          fileOffset += addInline(f, fileOffset, 1, prev, firstOrdinal, inFile, DATA_PER_INDEX);
        }
      }
      if (inFile % DATA_PER_BLOOM != 0) {
        fileOffset += addInline(f, fileOffset, 2, prev, firstOrdinal, inFile, DATA_PER_BLOOM);
      }
      if (inFile % DATA_PER_INDEX != 0) {
        fileOffset += addInline(f, fileOffset, 1, prev, firstOrdinal, inFile, DATA_PER_INDEX);
      }
      fileFirstBlock[f + 1] = blocks;
      fileFirstData[f + 1] = data;
      bytesThroughFile[f] = physical;
      return physical - start;
    }

    /** Adds an inline block covering the data blocks of the file since the last one of its kind. */
    private int addInline(int f, long fileOffset, int kind, long[] prev, int firstOrdinal,
        int inFile, int every) {
      int p = kind == 1 ? INDEX_PAYLOAD : BLOOM_PAYLOAD;
      int id = add(f, fileOffset, p, kind, prev);
      int from = firstOrdinal + ((inFile - 1) / every) * every;
      for (int o = from; o < firstOrdinal + inFile; o++) {
        if (kind == 1) {
          indexOf[o] = id;
        } else {
          bloomOf[o] = id;
        }
      }
      return HEADER + p;
    }

    private int add(int f, long fileOffset, int p, int kind, long[] prev) {
      if (blocks == file.length) {
        int n = 2 * blocks;
        file = Arrays.copyOf(file, n);
        offset = Arrays.copyOf(offset, n);
        position = Arrays.copyOf(position, n);
        payload = Arrays.copyOf(payload, n);
        type = Arrays.copyOf(type, n);
        prevOffset = Arrays.copyOf(prevOffset, n);
      }
      int id = blocks++;
      file[id] = f;
      offset[id] = fileOffset;
      position[id] = physical;
      payload[id] = p;
      type[id] = (byte) kind;
      prevOffset[id] = prev[kind];
      prev[kind] = fileOffset;
      physical += HEADER + p;
      return id;
    }

    private void ensureData() {
      if (data == dataBlock.length) {
        int n = 2 * data;
        dataBlock = Arrays.copyOf(dataBlock, n);
        indexOf = Arrays.copyOf(indexOf, n);
        bloomOf = Arrays.copyOf(bloomOf, n);
      }
    }
  }
}
