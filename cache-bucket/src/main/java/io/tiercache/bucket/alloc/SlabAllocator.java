/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import io.tiercache.bucket.evict.Clock;
import io.tiercache.bucket.meta.BlockMeta;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Hands out slots of the L2's slabs by size class, picks eviction victims, and moves slabs
 * between classes as the mix of block sizes changes.
 *
 * <h2>Slabs and classes</h2>
 * Every slab starts free. A class that needs a slot takes one from its slabs with free slots,
 * else takes a free slab, else the caller must reclaim space ({@link #reclaim}). A slab whose last
 * slot is freed goes back to the free pool at once, so no class strands empty slabs. A class
 * that owns no slab while none is free is a <em>guest</em>: it takes free slots of the smallest
 * larger class that owns slabs ({@link #hostOf}); a slot's size is always its slab's class's.
 *
 * <h2>Reclaiming: evict in class, or rebalance</h2>
 * {@link #reclaim} decides per request. Each class's <em>demand</em> is its share of the hits
 * its slabs recently served, or, weighed against that by {@link #setHitPercent} (100 by default:
 * hits alone), its share of the bytes recently requested (slot size per allocation request);
 * both counters are halved every {@code 16 × slabs} requests (at least 256), and until a hit has
 * been counted the bytes decide. Its <em>holding</em> is its share of slabs. A class
 * holding at least one slab less than its demand, or no slab at all, takes a slab from a class
 * holding more than its demand: the least recently accessed slab of those classes is
 * <em>drained</em> (all its blocks evicted, pinned ones freed on their last release) and then
 * reassigned — but only if that slab was accessed less recently than every slab of the needy
 * class (or the needy class has none). Memory thus goes where a slab serves the most hits: a
 * class of small blocks holds more blocks per slab and so, at like popularity, more hits per slab,
 * and takes slabs from a class of large ones until their hits per slab are level (with the
 * insert bytes alone, every block lived about as long whatever its size, and at 2 GB of mixed
 * sizes the L2 held 13 % fewer blocks than Caffeine: docs/benchmarks.md); a shift in block sizes
 * or in what is read moves the slabs with it; a class that is inserted into rarely because it is
 * hit all the time (index and bloom blocks) keeps its slabs. Slab recency is
 * {@code System.nanoTime()} of the last read or allocation in the slab; a slab's hits are counted
 * by its readers without a lock and added to its class's at each halving (those of a slab that
 * empties before are dropped, so a slab leaving its class does not raise the class's share).
 *
 * <p>A class whose demand, in its host's larger slots, is worth less than a quarter slab does
 * not take one when memory is full: as a guest it evicts by its host's CLOCK, and a slab it
 * still holds whose blocks would fill at most a sixteenth of a host slab is drained for any
 * class that must evict, however recent ({@link #sparseSlab}).
 *
 * <p><b>A drain always finishes.</b> It lists the slab's <em>published</em> slots (state bit
 * PUBLISHED, set by {@link #markPublished} under this lock) and the caller evicts them. A slot a
 * writer holds allocated but has not published is not listed: {@link #markPublished} refuses it
 * once its slab drains, so its writer frees it instead (and writes the block elsewhere). Every
 * slot of a draining slab is thus evicted, freed by its writer, or freed by its last reader, and
 * the slab returns to the free pool with the last of them, whatever the interleaving; only a
 * reader that never releases a block can hold a drain open.
 *
 * <p>Otherwise the class evicts one of its own blocks by CLOCK ({@link Clock}, which sees the
 * class through a {@link ClockView}); a reader's {@link #pin} raises a slot's frequency.
 *
 * <h2>Concurrency</h2>
 * All methods take {@code lock}, except the slot-state operations ({@link #pin},
 * {@link #unpin}, record reads and writes) and {@link #admissionVictim}, which are lock free.
 * Writers and evictors contend for the lock; readers never wait for it: they take it only to
 * free a slot whose eviction they outlived, and the admission filter asks a per-class hint that
 * every change to the class's free space or CLOCK hand refreshes under the lock (a reader's
 * look at the victim once parked on this lock behind writers' evictions: issue 11).
 *
 * <p><b>Size.</b> About 920 lines, past the style guide's 600: slab assignment, guests,
 * CLOCK's victims and their admission hints, rebalancing (and the demand and hit counts it
 * reads), draining and the lazily allocated records all change the same slab lists and free
 * counts under the one lock; the lock-free record accessors are one-line delegations to
 * {@link Slab}. Splitting them apart would expose that lock's state to a second class.
 */
public final class SlabAllocator {
  private final SizeClasses classes;
  private final int slabSize;
  private final Slab[] slabs;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Slab> freeSlabs = new ArrayDeque<>(); // guarded by lock
  final List<List<Slab>> byClass = new ArrayList<>(); // guarded by lock
  private final ArrayDeque<Slab>[] partial; // guarded by lock: class slabs with free slots
  private final long[] demand; // guarded by lock
  private final long[] hitDemand; // guarded by lock: hits per class, halved with demand
  private long hitTotal; // guarded by lock: the sum of hitDemand
  private volatile int hitPercent = 100; // the hits' weight in a class's share, 0..100
  // guarded by lock: per CLOCK hand (Clock.EVICT, Clock.DEMOTE) and class, its index into byClass
  final int[][] handSlab;
  final int[] protectedSlots; // guarded by lock: per class, blocks in the protected segment
  private volatile int protectedPercent = 80; // the segment's share of a class, 0..95
  private final ClockView[] clockView; // per class, what Clock sees of it (under lock)
  private long requests; // guarded by lock
  private volatile long usedSlotBytes; // written under lock
  final boolean[] draining; // guarded by lock
  private int drainingCount; // guarded by lock: at most one slab drains at a time
  private long clockSlotsExamined; // guarded by lock: slots CLOCK's hands visited (issue 15)
  // Per class, what admissionVictim answers: NO_VICTIM while the class can take a block without
  // evicting, else Clock.peek's slot. Written under lock by every change to the free space or a
  // hand (refreshHint), read without it.
  private final AtomicLongArray victimHint;

  /** What {@link #reclaim} tells the caller to do. */
  public static final class Reclaim {
    /** Handles to evict: remove from the index, then call {@link #free}. */
    public final long[] victims;
    /** True if the victims drain a whole slab for another class. */
    public final boolean rebalance;

    Reclaim(long[] victims, boolean rebalance) {
      this.victims = victims;
      this.rebalance = rebalance;
    }
  }

  @SuppressWarnings("unchecked")
  public SlabAllocator(SizeClasses classes, long capacity, int slabSize) {
    if (capacity <= 0 || capacity % slabSize != 0) {
      throw new IllegalArgumentException(
          "capacity " + capacity + " is not a positive multiple of the slab size " + slabSize);
    }
    long count = capacity / slabSize;
    if (count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("too many slabs: " + count);
    }
    this.classes = classes;
    this.slabSize = slabSize;
    this.slabs = new Slab[(int) count];
    int maxSlots = classes.slotsPerSlab(0);
    for (int i = 0; i < slabs.length; i++) {
      slabs[i] = new Slab(i, (long) i * slabSize, maxSlots);
      freeSlabs.add(slabs[i]);
    }
    this.draining = new boolean[slabs.length];
    this.partial = new ArrayDeque[classes.count()];
    this.demand = new long[classes.count()];
    this.hitDemand = new long[classes.count()];
    this.handSlab = new int[2][classes.count()];
    this.protectedSlots = new int[classes.count()];
    this.clockView = new ClockView[classes.count()];
    this.victimHint = new AtomicLongArray(classes.count());
    for (int c = 0; c < classes.count(); c++) {
      byClass.add(new ArrayList<>());
      partial[c] = new ArrayDeque<>();
      clockView[c] = new ClockView(this, c);
      victimHint.set(c, NO_VICTIM);
    }
  }

  public SizeClasses classes() {
    return classes;
  }

  /**
   * Direct memory the slot records of a {@code capacity}-byte L2 take: one record per slot of the
   * smallest class in every slab, allocated at construction.
   */
  public static long recordBytesFor(long capacity, int slabSize, SizeClasses classes) {
    return capacity / slabSize * classes.slotsPerSlab(0) * (long) Slab.RECORD;
  }

  /** The most blocks a {@code capacity}-byte L2 can hold: every slab in the smallest class. */
  public static long maxSlotsFor(long capacity, int slabSize, SizeClasses classes) {
    return capacity / slabSize * classes.slotsPerSlab(0);
  }

  public int slabCount() {
    return slabs.length;
  }

  /** Engine address of the slot {@code handle} (where its bytes start in the engine). */
  public long address(long handle) {
    Slab s = slabs[Handles.slab(handle)];
    return s.base + (long) Handles.slot(handle) * classes.size(s.sizeClass);
  }

  /** Size class of the slab holding {@code handle}. */
  public int classOf(long handle) {
    return slabs[Handles.slab(handle)].sizeClass;
  }

  /**
   * Takes a free slot of class {@code c}, or returns {@link Handles#NONE}: from one of its slabs,
   * else from a free slab, else, if the class owns no slab, from its {@linkplain #hostOf host}.
   */
  public long allocate(int c) {
    lock.lock();
    try {
      countDemand(c);
      int k = c; // the class whose slab gives the slot
      Slab s = partial[c].peekFirst();
      boolean tookFreeSlab = false;
      if (s == null && freeSlabs.isEmpty()) {
        int host = hostOf(c);
        if (host < 0 || partial[host].isEmpty() || !staysGuest(c, host)) {
          return Handles.NONE; // reclaim makes room, or a slab for the class
        }
        k = host;
        s = partial[host].peekFirst();
      } else if (s == null) {
        s = freeSlabs.pollFirst();
        if (!s.allocateRecords()) {
          freeSlabs.addFirst(s);
          return Handles.NONE;
        }
        s.assign(c, classes.slotsPerSlab(c));
        byClass.get(c).add(s);
        partial[c].addFirst(s);
        tookFreeSlab = true;
      }
      int slot = s.take();
      usedSlotBytes += classes.size(k);
      if (s.used == s.slots) {
        partial[k].remove(s);
      }
      s.lastAccess = System.nanoTime();
      if (tookFreeSlab && freeSlabs.isEmpty()) {
        refreshHints(); // the last free slab: every class without a free slot must now evict
      } else if (partial[k].isEmpty()) {
        refreshHint(k);
      }
      return Handles.of(s.index, slot);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The class whose slots class {@code c} borrows, or -1: a class that owns no slab while no
   * slab is free stores its blocks in slots of the smallest larger class that owns slabs (a
   * 41 KB index block in a 65 KB slot), rather than taking a whole slab for what may be a
   * handful of blocks; it stays a guest while its demand, in the host's slots, is worth less than
   * {@link #GUEST_WORTH} slabs, else it gets a slab of its own. Caller holds the lock.
   */
  private int hostOf(int c) {
    return byClass.get(c).isEmpty() && freeSlabs.isEmpty() ? largerOwner(c) : -1;
  }

  /** The smallest class larger than {@code c} that owns slabs, or -1. Caller holds the lock. */
  private int largerOwner(int c) {
    for (int d = c + 1; d < byClass.size(); d++) {
      if (!byClass.get(d).isEmpty()) {
        return d;
      }
    }
    return -1;
  }

  /**
   * Whether class {@code c} could take a block without evicting: a free slot in one of its slabs
   * or a free slab, or, for a class that stays a guest, a free slot of its
   * {@linkplain #hostOf host}. A snapshot; HBase's prefetch asks it to stop when the cache is
   * full.
   */
  public boolean hasFreeSpace(int c) {
    lock.lock();
    try {
      int host = hostOf(c);
      return !partial[c].isEmpty() || !freeSlabs.isEmpty()
          || (host >= 0 && !partial[host].isEmpty() && staysGuest(c, host));
    } finally {
      lock.unlock();
    }
  }

  /** {@link #admissionVictim}: class {@code c} can take a block without evicting one of its own. */
  public static final long NO_VICTIM = -2L;

  /** Hint values at or below this name the host class whose hint answers: HOSTED - host. */
  private static final long HOSTED = -3L;

  /**
   * For the L2's admission filter: the slot an insert into class {@code c} would displace.
   * {@link #NO_VICTIM} if the class has a free slot, a free slab is left, or the class holds no
   * slab and no larger class does (it would take a slab from another class by rebalancing,
   * never by evicting its own). A class that holds no slab answers for its
   * {@linkplain #hostOf host}'s slots. Otherwise what CLOCK would likely evict next
   * ({@link Clock#peek}); {@link Handles#NONE} if none of the slots it looks at is published.
   * Moves no hand and changes no counter.
   *
   * <p>Lock free, for the reader's thread that misses: the answer is the class's hint, which
   * every change to its free space or CLOCK hand recomputes under the lock, so it is the answer
   * of the last such change. A hinted slot a reader has hit since (frequency above 0) or that
   * was evicted since is recomputed now if the lock is free at this instant, else returned as
   * it is: the writer's real eviction may not match a hint exactly, as it never matched a
   * snapshot exactly, and a reader never waits here behind the writers' evictions.
   */
  public long admissionVictim(int c) {
    long h = victimHint.get(c);
    if (h <= HOSTED) {
      c = (int) (HOSTED - h);
      h = victimHint.get(c);
      if (h <= HOSTED) {
        return NO_VICTIM; // the host just lost its last slab: the guest would take a free one
      }
    }
    if (h >= 0) {
      int st = slabs[Handles.slab(h)].state(Handles.slot(h));
      if ((SlotState.freq(st) > 0 || !isPublished(st)) && lock.tryLock()) {
        try {
          refreshHint(c);
          h = victimHint.get(c);
        } finally {
          lock.unlock();
        }
      }
    }
    return h;
  }

  /** {@link #admissionVictim} computed now under the lock, for tests of the hint. */
  long admissionVictimNow(int c) {
    lock.lock();
    try {
      long h = victimLocked(c);
      return h <= HOSTED ? victimLocked((int) (HOSTED - h)) : h;
    } finally {
      lock.unlock();
    }
  }

  /**
   * What {@link #admissionVictim} answers for class {@code c} now, or HOSTED - host for a guest
   * class. Caller holds the lock.
   */
  private long victimLocked(int c) {
    if (!partial[c].isEmpty() || !freeSlabs.isEmpty()) {
      return NO_VICTIM;
    }
    if (byClass.get(c).isEmpty()) {
      int host = hostOf(c);
      return host < 0 ? NO_VICTIM : HOSTED - host;
    }
    return Clock.peek(clockView[c]);
  }

  /** Recomputes class {@code c}'s {@link #admissionVictim} hint. Caller holds the lock. */
  private void refreshHint(int c) {
    victimHint.set(c, victimLocked(c));
  }

  /** {@link #refreshHint} for every class (the free slabs changed). Caller holds the lock. */
  private void refreshHints() {
    for (int c = 0; c < partial.length; c++) {
      refreshHint(c);
    }
  }

  private void countDemand(int c) {
    demand[c] += classes.size(c);
    if (++requests % Math.max(256L, 16L * slabs.length) == 0) {
      countHits();
      hitTotal = 0;
      for (int i = 0; i < demand.length; i++) {
        demand[i] >>>= 1;
        hitDemand[i] >>>= 1;
        hitTotal += hitDemand[i];
      }
    }
  }

  /**
   * Adds each slab's hits since the last count to its class's {@code hitDemand}: one pass over
   * the slabs per window slide ({@code 16 × slabs} allocations), so a sixteenth of a slab's look
   * per allocation. Caller holds the lock.
   */
  private void countHits() {
    for (Slab s : slabs) {
      long h = s.hits;
      if (h != 0 && s.sizeClass >= 0) {
        s.hits = 0;
        hitDemand[s.sizeClass] += h;
      }
    }
  }

  /**
   * Sets how much the hits each class served weigh against its insert bytes in its share of
   * slabs ({@code tiercache.l2.rebalance.hit.percent}, 0 to 100); any thread.
   */
  public void setHitPercent(int percent) {
    if (percent < 0 || percent > 100) {
      throw new IllegalArgumentException("hit percent " + percent + " outside 0..100");
    }
    hitPercent = percent;
  }

  /**
   * Sets the share of each class's slots its protected segment may hold
   * ({@code tiercache.l2.protected.percent}, 0 to 95; see {@link Clock}); any thread. A lower
   * share than the segment holds is reached as the hands pass: the eviction hand ages the
   * protected blocks it passes while the segment is over its cap.
   */
  public void setProtectedPercent(int percent) {
    if (percent < 0 || percent > 95) {
      throw new IllegalArgumentException("protected percent " + percent + " outside 0..95");
    }
    protectedPercent = percent;
  }

  /** {@link #setProtectedPercent}'s current value. */
  public int protectedPercent() {
    return protectedPercent;
  }

  /** {@link #setHitPercent}'s current value. */
  public int hitPercent() {
    return hitPercent;
  }

  /**
   * Frees a slot that is not (or no longer) in the index: a writer's slot it will not publish
   * (or whose publication was refused), or a slot just removed from the index. Freed now if no
   * reader pins it, else marked so that the last {@link #unpin} frees it. Never a plain free: a
   * reader can pin a published slot it found through an index read that its validation then
   * rejects ({@code index.FileTable}), and that pin must not outlive the slot.
   */
  public void free(long handle) {
    if (slabs[Handles.slab(handle)].markEvicted(Handles.slot(handle))) {
      giveBack(handle);
    }
  }

  /** Returns a slot to its slab's free bitmap (no pin left, evicted or never published). */
  private void giveBack(long handle) {
    lock.lock();
    try {
      Slab s = slabs[Handles.slab(handle)];
      int c = s.sizeClass;
      boolean wasFull = s.used == s.slots;
      if (SlotState.isProtected(s.state(Handles.slot(handle)))) {
        protectedSlots[c]--;
      }
      s.give(Handles.slot(handle));
      usedSlotBytes -= classes.size(c);
      if (s.used == 0) {
        partial[c].remove(s);
        byClass.get(c).remove(s);
        s.hits = 0; // dropped: a slab leaving its class does not raise the class's share
        s.release();
        if (draining[s.index]) {
          draining[s.index] = false;
          drainingCount--;
        }
        freeSlabs.addLast(s);
        refreshHints(); // a free slab: no class needs to evict (cheap: no class peeks)
      } else if (wasFull && !draining[s.index]) {
        partial[c].addLast(s);
        victimHint.set(c, NO_VICTIM);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Chooses what to evict so that class {@code c} can allocate: a whole slab of another class
   * (rebalance) or blocks of its own or of its {@linkplain #hostOf host} (CLOCK). Returns null
   * if nothing can be evicted.
   */
  public Reclaim reclaim(int c) {
    lock.lock();
    try {
      List<Slab> own = byClass.get(c);
      int host = hostOf(c);
      if (host >= 0 && staysGuest(c, host)) {
        return clockVictim(host); // a guest: too few of its blocks to be worth a slab
      }
      // One drain at a time: a drained slab whose blocks are pinned frees only when the readers
      // release, and starting more drains meanwhile would empty slabs nobody needs yet.
      if (drainingCount == 0) {
        Slab victim = sparseSlab(c);
        if (victim == null && (own.isEmpty() || underHeld(c))) {
          victim = coldestDonor(c);
          if (victim != null && !own.isEmpty() && !colderThanAll(victim, own)) {
            victim = null;
          }
        }
        if (victim != null) {
          draining[victim.index] = true;
          drainingCount++;
          partial[victim.sizeClass].remove(victim);
          refreshHint(victim.sizeClass);
          return new Reclaim(publishedSlots(victim), true);
        }
      }
      return clockVictim(c);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A class whose blocks, at its recent demand and in its host's larger slots, are worth less
   * than this many slabs stays a guest when memory is full, and a sparse slab of it may be
   * drained ({@link #sparseSlab}). A 41 KB index block read on every get but inserted once is
   * worth almost nothing. On a log-uniform mix of sizes from 4 KB to 512 KB in 57 slabs
   * (computed, default sizes) the 5 KB class is worth 0.11 slabs, 0.15 in 7 KB slots, and stays a
   * guest; the 7 KB class 0.23, 0.29 in 9 KB slots, and keeps a slab of its own. Measured, with
   * HBase's fourteen sizes, on the showdown's {@code zipf-mixed-9x} cell ({@code tiercache}, one
   * run each, hit ratio 76.5 % before guests): 75.9 % with a half (and quarter-slab sparse
   * drains), 77.0 % with a quarter (and sixteenth-slab drains).
   */
  static final double GUEST_WORTH = 0.25;

  /**
   * A slab is sparse if its blocks would fill at most this share of a host slab. A sixteenth
   * (256 KB of a 4 MB slab): with a quarter, the showdown's {@code zipf-mixed-9x} cell lost
   * 0.9 pt of hit ratio to drains of small classes' slabs whose hot blocks the L1 held.
   */
  static final int SPARSE_DIVISOR = 16;

  /** Whether class {@code c} stays a guest of class {@code host} (see {@link #GUEST_WORTH}). */
  private boolean staysGuest(int c, int host) {
    return staysGuest(c, host, totalDemand());
  }

  private boolean staysGuest(int c, int host, long totalDemand) {
    return slabsWorth(c, totalDemand) * classes.size(host) / classes.size(c) < GUEST_WORTH;
  }

  /** CLOCK's victim in class {@code c}, as a reclaim; null if none. Caller holds the lock. */
  private Reclaim clockVictim(int c) {
    long h = Clock.victim(clockView[c]);
    clockSlotsExamined += clockView[c].takeExamined();
    refreshHint(c); // the hand moved
    return h == Handles.NONE ? null : new Reclaim(new long[] {h}, false);
  }

  /** How many slabs class {@code c}'s share of the recent demand is worth. */
  private double slabsWorth(int c, long totalDemand) {
    return share(c, totalDemand) * slabs.length;
  }

  /**
   * Class {@code c}'s share of the slabs: its share of the recent insert bytes and its share of
   * the recent hits, weighed by {@link #hitPercent} (the insert share alone until a hit has been
   * counted). Caller holds the lock.
   */
  private double share(int c, long totalDemand) {
    double inserts = totalDemand == 0 ? 0 : (double) demand[c] / totalDemand;
    int w = hitPercent;
    if (w == 0 || hitTotal == 0) {
      return inserts;
    }
    double hits = (double) hitDemand[c] / hitTotal;
    return (w * hits + (100 - w) * inserts) / 100;
  }

  /** The recent demand of all classes, in bytes. Caller holds the lock. */
  private long totalDemand() {
    long total = 0;
    for (long d : demand) {
      total += d;
    }
    return total;
  }

  /**
   * A slab worth draining for class {@code needy} however recently it was read: one of a class
   * that would stay a guest ({@link #GUEST_WORTH}) and holds so few blocks that they would fill
   * at most a sixteenth of a slab of the larger class that would host them once it is gone (seen in
   * {@code real-hbase}: one hot 41 KB index block kept a whole 4 MB slab, an eighth of the L2,
   * because no slab of the data blocks was ever colder). Null if there is none.
   */
  private Slab sparseSlab(int needy) {
    long total = totalDemand();
    for (int d = 0; d < byClass.size(); d++) {
      if (d == needy || byClass.get(d).isEmpty()) {
        continue;
      }
      int host = largerOwner(d);
      if (host < 0 || !staysGuest(d, host, total)) {
        continue;
      }
      for (Slab s : byClass.get(d)) {
        if (!draining[s.index] && (long) s.used * classes.size(host) <= slabSize / SPARSE_DIVISOR) {
          return s;
        }
      }
    }
    return null;
  }

  private boolean underHeld(int c) {
    double worth = slabsWorth(c, totalDemand());
    return worth > 0 && byClass.get(c).size() + 1 <= worth;
  }

  private Slab coldestDonor(int needy) {
    long total = totalDemand();
    Slab best = null;
    for (int d = 0; d < byClass.size(); d++) {
      if (d == needy || byClass.get(d).isEmpty()) {
        continue;
      }
      double demandShare = share(d, total);
      double held = (double) byClass.get(d).size() / slabs.length;
      if (held <= demandShare && !byClass.get(needy).isEmpty()) {
        continue;
      }
      for (Slab s : byClass.get(d)) {
        if (!draining[s.index] && (best == null || s.lastAccess - best.lastAccess < 0)) {
          best = s;
        }
      }
    }
    return best;
  }

  /**
   * Whether {@code donor} was accessed less recently than every slab of the needy class: a hot
   * slab (say, index blocks hit on every get) is not drained for a class whose own coldest slab
   * is colder, whatever the two classes' insert rates.
   */
  private static boolean colderThanAll(Slab donor, List<Slab> own) {
    long at = donor.lastAccess;
    for (Slab s : own) {
      if (s.lastAccess - at <= 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Marks slot {@code handle}, whose record the caller has filled, as published: from now on a
   * drain of its slab lists it. Refused (false) while the slab drains, and then the caller must
   * free the slot rather than publish it. The caller holds the key's stripe lock and puts the
   * handle in the index before releasing it, so a drainer that lists the slot and then evicts it
   * (under the same stripe lock) finds it there.
   */
  public boolean markPublished(long handle) {
    lock.lock();
    try {
      Slab s = slabs[Handles.slab(handle)];
      if (draining[s.index] || !s.markPublished(Handles.slot(handle))) {
        return false;
      }
      if (victimHint.get(s.sizeClass) != NO_VICTIM) {
        refreshHint(s.sizeClass); // a full class: the new block (frequency 0) may come first
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Whether the slab of {@code handle} is being drained (for tests and invariant checks). */
  public boolean isDraining(long handle) {
    lock.lock();
    try {
      return draining[Handles.slab(handle)];
    } finally {
      lock.unlock();
    }
  }

  /** Number of slabs being drained: 0 or 1, back to 0 when the drained slab is free. */
  public int drainingCount() {
    lock.lock();
    try {
      return drainingCount;
    } finally {
      lock.unlock();
    }
  }

  private static boolean isPublished(int state) {
    return SlotState.isLive(state);
  }

  private long[] publishedSlots(Slab s) {
    long[] out = new long[s.used];
    int n = 0;
    for (int slot = 0; slot < s.slots; slot++) {
      int st = s.state(slot);
      if (isPublished(st)) {
        out[n++] = Handles.of(s.index, slot);
      }
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * Slots the CLOCK hands have visited since the allocator was built, over all classes: the
   * eviction work, which divided by the evictions gives the work per insert of a full cache.
   */
  public long clockSlotsExamined() {
    lock.lock();
    try {
      return clockSlotsExamined;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Claims slot {@code handle} for a block restored from a checkpoint; the slab takes class
   * {@code sizeClass} if it is free. Returns false if the slot cannot be claimed (another class,
   * out of range, or taken), in which case the block is not restored.
   */
  public boolean restore(long handle, int sizeClass) {
    lock.lock();
    try {
      int index = Handles.slab(handle);
      if (index < 0 || index >= slabs.length || sizeClass < 0 || sizeClass >= classes.count()) {
        return false;
      }
      Slab s = slabs[index];
      boolean tookFreeSlab = s.sizeClass == -1;
      if (s.sizeClass == -1) {
        if (!s.allocateRecords()) {
          return false;
        }
        freeSlabs.remove(s);
        s.assign(sizeClass, classes.slotsPerSlab(sizeClass));
        byClass.get(sizeClass).add(s);
        partial[sizeClass].addLast(s);
      } else if (s.sizeClass != sizeClass) {
        return false;
      }
      if (!s.takeSlot(Handles.slot(handle))) {
        return false;
      }
      usedSlotBytes += classes.size(sizeClass);
      if (s.used == s.slots) {
        partial[sizeClass].remove(s);
      }
      if (tookFreeSlab && freeSlabs.isEmpty()) {
        refreshHints();
      } else if (partial[sizeClass].isEmpty()) {
        refreshHint(sizeClass);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  // ----- slot state and records (lock free) -------------------------------------------------

  /**
   * Pins a live published slot for a reader and counts the access: CLOCK frequency up to 3 in
   * the pin's CAS (no separate write), and the slab's recency for rebalancing. False if the
   * slot is not live and published (free, its writer's, being evicted) or its pins are
   * saturated.
   */
  public boolean pin(long handle) {
    Slab s = slabs[Handles.slab(handle)];
    if (!s.pin(Handles.slot(handle))) {
      return false;
    }
    s.lastAccess = System.nanoTime();
    s.hits++; // racy: two readers' increments may count as one; a share, not a total
    return true;
  }

  /** Drops a reader's pin, freeing the slot if it was evicted meanwhile and this was the last. */
  public void unpin(long handle) {
    if (slabs[Handles.slab(handle)].unpin(Handles.slot(handle))) {
      giveBack(handle);
    }
  }

  /**
   * Whether a block at {@code blockOffset} of its HFile, {@code length} bytes long, fits a slot
   * record (offset below 2^40, length 1 B to 16 MB); a block that does not is refused before it
   * takes a slot.
   */
  public static boolean fits(long blockOffset, int length) {
    return Slab.fits(blockOffset, length);
  }

  /** The largest block a slot record describes, and so the largest size class (16 MB). */
  public static final int MAX_BLOCK_LENGTH = Slab.MAX_LENGTH;

  /**
   * Fills the record of a slot the caller allocated (or claimed at restore) from {@code m},
   * before publishing it in the index; the CLOCK frequency starts at
   * {@link BlockMeta#initialFreq} whatever {@code m.freq} says.
   *
   * @throws IllegalArgumentException if the block does not {@link #fits fit} a record
   */
  public void describe(long handle, BlockMeta m) {
    slabs[Handles.slab(handle)].write(Handles.slot(handle), m);
  }

  /** Sets the file id of slot {@code h}'s record (see {@code BlockIndex#put}). */
  public void fileId(long h, int fileId) {
    slabs[Handles.slab(h)].setFileId(Handles.slot(h), fileId);
  }

  /** Reads the record of slot {@code h} into {@code m}, with its handle and size class. */
  public BlockMeta read(long h, BlockMeta m) {
    Slab s = slabs[Handles.slab(h)];
    s.read(Handles.slot(h), m);
    m.handle = h;
    m.sizeClass = s.sizeClass;
    return m;
  }

  public int fileId(long h) {
    return slabs[Handles.slab(h)].fileId(Handles.slot(h));
  }

  public long blockOffset(long h) {
    return slabs[Handles.slab(h)].blockOffset(Handles.slot(h));
  }

  public int length(long h) {
    return slabs[Handles.slab(h)].length(Handles.slot(h));
  }

  public int checksum(long h) {
    return slabs[Handles.slab(h)].checksum(Handles.slot(h));
  }

  public int flags(long h) {
    return slabs[Handles.slab(h)].flags(Handles.slot(h));
  }

  /** Adds {@code flags} to the record's (a CAS on the state word). */
  public void addFlags(long h, int flags) {
    slabs[Handles.slab(h)].addFlags(Handles.slot(h), flags);
  }

  public int deserializer(long h) {
    return slabs[Handles.slab(h)].deserializer(Handles.slot(h));
  }

  public int type(long h) {
    return slabs[Handles.slab(h)].type(Handles.slot(h));
  }

  /** Minutes since the tier started when the block was cached, modulo 2^16 (see Slab). */
  public int cachedAt(long h) {
    return slabs[Handles.slab(h)].cachedAt(Handles.slot(h));
  }

  public int pins(long h) {
    return slabs[Handles.slab(h)].pins(Handles.slot(h));
  }

  public int freq(long h) {
    return slabs[Handles.slab(h)].freq(Handles.slot(h));
  }

  /** The slot's state word (see {@link Slab}); for invariant checks. */
  public int state(long h) {
    return slabs[Handles.slab(h)].state(Handles.slot(h));
  }

  /** Bytes of slots in use (slot sizes). */
  public long usedSlotBytes() {
    return usedSlotBytes;
  }

  // ----- occupancy ---------------------------------------------------------------------------

  /** A snapshot of how the slabs are used. */
  public Occupancy occupancy() {
    lock.lock();
    try {
      int n = classes.count();
      int[] slabsOf = new int[n];
      long[] usedSlots = new long[n];
      long[] slotCount = new long[n];
      for (int c = 0; c < n; c++) {
        for (Slab s : byClass.get(c)) {
          slabsOf[c]++;
          usedSlots[c] += s.used;
          slotCount[c] += s.slots;
        }
      }
      return new Occupancy(classes, slabSize, slabs.length, freeSlabs.size(), slabsOf, usedSlots,
          slotCount, protectedSlots.clone());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Allocates the slot records of every slab that has none yet, one slab at a time under the
   * lock (the tier runs it on a background thread after it is built, so the direct memory
   * {@code DirectBudget} counted at start-up is taken within moments); stops early when
   * {@code stop} says so. Returns how many slabs got no records for lack of direct memory
   * (each retried at its first use).
   */
  public int allocateRecords(java.util.function.BooleanSupplier stop) {
    int failed = 0;
    for (Slab s : slabs) {
      if (stop.getAsBoolean()) {
        break;
      }
      lock.lock();
      try {
        if (!s.allocateRecords()) {
          failed++;
        }
      } finally {
        lock.unlock();
      }
    }
    return failed;
  }

  /** Off-heap bytes of slot records allocated so far. */
  public long recordBytes() {
    long n = 0;
    for (Slab s : slabs) {
      n += s.recordBytes();
    }
    return n;
  }
}
