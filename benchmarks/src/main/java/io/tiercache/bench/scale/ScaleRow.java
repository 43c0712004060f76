/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bench.scale;

/**
 * One subject at one block count: what the scale run measured (JSON, CSV and the text table are
 * made from these fields). -1 or NaN: not measured (e.g. eviction work for HBase, which has no
 * such counter).
 */
public final class ScaleRow {
  public String subject;
  public long blocks;
  public long filled;
  public double fillSeconds;
  /** Live heap growth after the fill (full GCs), per cached block. */
  public double heapBytesPerBlock = Double.NaN;
  /** Direct-memory growth after the fill, per cached block. */
  public double offHeapBytesPerBlock = Double.NaN;
  public double churnSeconds;
  public long churnInserts;
  public long checkpoints;
  public long persistBytes;
  /** Persistence bytes written per persist interval (1 s) under the churn. */
  public double persistBytesPerInterval;
  /** Heap allocated by the persistence thread per second of churn. */
  public double persistAllocPerSecond;
  /** Heap the persistence thread allocated per checkpoint, per cached block. */
  public double persistAllocPerBlockPerCheckpoint = Double.NaN;
  /** Heap the persistence thread allocated per persist interval, per cached block. */
  public double persistAllocPerBlockPerInterval = Double.NaN;
  /** Heap allocated by all threads per second of churn (inserts and reads included). */
  public double allAllocPerSecond;
  public long evictions;
  /** CLOCK slots examined per eviction (TierCache only). */
  public double evictionSlotsPerEviction = Double.NaN;
  public long hits;
  public long misses;
  public double hitP50Micros;
  public double hitP99Micros;
  public double hitP999Micros;
  /** Blocks served with bytes other than their key's, over the whole run. */
  public long wrongBlocks;
  public double shutdownSeconds;
  public double reopenMillis;
  /** From the start of the reopen to the first hit on any of 1,000 blocks cached before. */
  public double firstHitMillis = Double.NaN;
  public double restoreMillis = Double.NaN;
  public long restored = -1;
  /** SIGKILL round: blocks the child had made durable at its last sync before the kill. */
  public long killSynced = -1;
  public long killKept = -1;
  public double killKeptShare = Double.NaN;
  public long killWrongBlocks = -1;
  public double killFirstHitMillis = Double.NaN;
  public double killRestoreMillis = Double.NaN;
  public String note = "";
}
