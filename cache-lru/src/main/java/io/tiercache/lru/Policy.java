/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

import io.tiercache.core.stats.TierStats;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The L1's replacement policy: W-TinyLFU laid over HBase's three priorities.
 *
 * <h2>Queues</h2>
 * <pre>
 *   new block ──► WINDOW ──(overflow: frequency duel)──► PROBATION ──(hit)──► PROTECTED
 *                  LRU                                      LRU      ◄─(demote)─   LRU
 *   in-memory or meta block ──► MEMORY (LRU)
 * </pre>
 * HBase's single-access share is WINDOW + PROBATION, its multi-access share is PROTECTED, its
 * in-memory share is MEMORY. A share is a target, not a reservation: space another share does not
 * use is free for all, and shares are enforced only when the cache is full.
 *
 * <p><b>The in-memory share's spare room goes to PROTECTED.</b> While in-memory and meta blocks
 * fill less than their share, the multi share's target grows by the difference (HBase's defaults,
 * 25/50/25, then give the protected segment 75 % of a cache without in-memory blocks, near
 * W-TinyLFU's 80 % protected main space). Without it the idle quarter was split between single
 * and multi by their turns, which left PROTECTED at about half the cache, and blocks read again
 * and again were demoted into the duel with one-pass scan blocks: on the showdown's
 * {@code scan-64k-3x}, 66.2 % hits against Caffeine's 68.6 % before, 68.8 % against 68.8 % after
 * (docs/benchmarks.md). As in-memory blocks arrive the spare shrinks and PROTECTED gives the
 * room back by demotion.
 *
 * <h2>Eviction</h2>
 * While the total weight exceeds the maximum, the shares over their target take turns giving way:
 * <ul>
 *   <li>MEMORY evicts its least recently used block (with in-memory force mode, or when the
 *       combined cache's hot mode asks for {@link #setMemoryFirst}, only once the other shares
 *       are empty);</li>
 *   <li>PROTECTED demotes its least recently used block to PROBATION (a second chance, as in a
 *       segmented LRU), which moves the pressure to the single share;</li>
 *   <li>the single share runs the TinyLFU duel: the window's oldest block (the candidate) is
 *       admitted to PROBATION only if the sketch says it is used more often than PROBATION's
 *       oldest block (the victim), which is then evicted; otherwise the candidate is evicted.
 *       A one-pass scan therefore washes through the window without displacing blocks that are
 *       read again and again. A tie goes to the candidate only when it weighs at most
 *       1/{@value #TIE_SIZE_FACTOR} of the victim (see {@link #wins}).</li>
 * </ul>
 * Every step evicts or moves one block, so an insert does work proportional to the blocks it
 * displaces; nothing scans the cache. A promotion (a hit on a PROBATION block) in a cache within
 * one block of its maximum also demotes up to {@value #DEMOTIONS_PER_PROMOTION} blocks while
 * PROTECTED is over its target (see {@link #onAccess}).
 *
 * <h2>Adaptive window</h2>
 * The window starts at {@code tiercache.lru.window.percentage} of the cache and is then sized by
 * {@link WindowClimber} (hill climbing on the hit rate, as Caffeine does), between 0 and
 * {@link #maxWindowShare()}. A larger window favours recency (blocks re-read soon after their
 * first read), a smaller one frequency. Hill climbing cannot cross a valley (blocks re-read a
 * fixed number of inserts later hit only once the window holds them all, and a window growing
 * towards that size first loses hits): {@link WindowSims} simulates the policy in miniature at
 * fixed shares, and when one of them hits clearly more often than the present share, the window
 * jumps to it at the end of the climber's sample and the climber goes on from there. What the
 * window gains over its start, the single share gains and the multi share gives up, and the
 * reverse; the in-memory share and its force mode do not move. At the configured start the
 * shares are exactly HBase's.
 *
 * <h2>Concurrency</h2>
 * Not thread safe: every method is called with the L1's eviction lock held.
 */
final class Policy {
  private final NodeDeque window = new NodeDeque();
  private final NodeDeque probation = new NodeDeque();
  private final NodeDeque protectedQ = new NodeDeque();
  private final NodeDeque memory = new NodeDeque();
  private final FrequencySketch sketch = new FrequencySketch();
  private final SplittableRandom random = new SplittableRandom(0x5eedL);
  private LruConfig config;
  private final TierStats stats;

  /** The shares in turn order: single (window + probation), multi, in-memory. */
  private static final byte[] SHARES = {Node.WINDOW, Node.PROTECTED, Node.MEMORY};

  private final WindowClimber climber = new WindowClimber();
  private final WindowSims sims = new WindowSims(sketch);

  /**
   * A candidate that ties with its victim on frequency wins only if it weighs at most the victim's
   * weight divided by this ({@link #wins}).
   */
  static final long TIE_SIZE_FACTOR = 2;

  /** Requests (hits, weighted, and inserts) per period of {@link #quiet()}. */
  static final int QUIET_PERIOD = 4096;
  /** A period is quiet when fewer than one request in this many was an insert. */
  static final int QUIET_MISS_RATIO = 100;
  /** At most this many PROTECTED blocks demoted by one promotion (see {@link #onAccess}). */
  static final int DEMOTIONS_PER_PROMOTION = 2;
  private long periodRequests;
  private long periodInserts;
  /** Hits applied by {@link #onAccess}, a sampled one counted once (for tests). */
  private long accessesApplied;
  private volatile boolean quiet;

  /**
   * In-memory and meta blocks give way only once no other block is left, as in force mode,
   * whatever the configuration says ({@link #setMemoryFirst}).
   */
  private boolean memoryFirst;
  private int turn;
  /** The window's current share of the cache, moved by {@link #climber}. */
  private double windowShare;
  private long maxWeight;
  private long windowTarget;
  private long singleTarget;
  private long multiTarget;
  private long memoryTarget;
  private long dataWeight;
  private long dataCount;

  Policy(LruConfig config, TierStats stats) {
    this.config = config;
    this.stats = stats;
    this.windowShare = config.windowShare;
    setMaximum(config.maxSize);
  }

  void setMaximum(long max) {
    maxWeight = max;
    setTargets();
    sketch.ensureCapacity(max / config.blockSizeHint);
    climber.setCapacity(max / config.blockSizeHint);
    sims.setCapacity(max / config.blockSizeHint, maxWindowShare());
    retargetSims();
  }

  /** Gives the window's models the byte targets the L1 has now, at each of their shares. */
  private void retargetSims() {
    if (!sims.enabled()) {
      return;
    }
    long spareMemory = Math.max(0, memoryTarget - memory.weight());
    sims.setTargets(maxWeight - memory.weight(), share -> (long) (maxWeight
        * Math.max(0, config.multiShare - (share - config.windowShare))) + spareMemory);
  }

  /**
   * Derives the byte targets from the shares. The window is part of the single share; what it
   * gains beyond its configured start the single share takes from the multi share (what it
   * loses goes back there), as Caffeine's window takes from its protected segment; past the whole
   * multi share the window grows into the rest of the single share. The in-memory share never
   * moves.
   */
  private void setTargets() {
    double shift = windowShare - config.windowShare;
    multiTarget = (long) (maxWeight * Math.max(0, config.multiShare - shift));
    memoryTarget = (long) (maxWeight * config.memoryShare);
    singleTarget = maxWeight - multiTarget - memoryTarget;
    windowTarget = (long) (maxWeight * windowShare);
  }

  /**
   * The largest window share: {@value #MAX_WINDOW_SHARE} of the cache, and no more than the
   * single and multi shares together (the in-memory share is never the window's).
   */
  double maxWindowShare() {
    return Math.min(MAX_WINDOW_SHARE, config.singleShare + config.multiShare);
  }

  /** Bound of the adaptive window, as a share of the cache. */
  static final double MAX_WINDOW_SHARE = 0.8;

  /** The window's current share of the cache. */
  double windowShare() {
    return windowShare;
  }

  /**
   * Takes new shares and flags (an online configuration change); the maximum is kept. The window
   * restarts at the configured share and climbs again from there.
   */
  void reconfigure(LruConfig next) {
    config = next;
    windowShare = next.windowShare;
    climber.reset();
    setMaximum(maxWeight);
  }

  /**
   * With {@code first}, MEMORY (in-memory and meta blocks) is shrunk only once the other shares
   * are empty, as with {@code hbase.lru.rs.inmemoryforcemode}, which this overrides (the
   * combined cache's hot mode: see {@link LruTier#setMemoryFirst}). Survives
   * {@link #reconfigure}.
   */
  void setMemoryFirst(boolean first) {
    memoryFirst = first;
  }

  /** Ends a climber's sample if one is complete, moving the window. */
  private void climb() {
    if (climber.due()) {
      double share = climber.adjust(windowShare, maxWindowShare());
      double jump = sims.jump(windowShare);
      if (!Double.isNaN(jump)) {
        climber.jumped(jump > windowShare);
        share = jump;
      }
      windowShare = share;
      setTargets();
      retargetSims();
    }
  }

  long maximum() {
    return maxWeight;
  }

  long weight() {
    return window.weight() + probation.weight() + protectedQ.weight() + memory.weight();
  }

  long count() {
    return window.count() + probation.count() + protectedQ.count() + memory.count();
  }

  long dataWeight() {
    return dataWeight;
  }

  long dataCount() {
    return dataCount;
  }

  /**
   * Whether inserts, the misses that can evict, have been rare (under 1 in
   * {@value #QUIET_MISS_RATIO} requests) over the last completed period of {@value #QUIET_PERIOD}
   * requests (hits, weighted, and inserts): the L1 then records only one in
   * {@value LruTier#HOT_HIT_SAMPLE} hits on PROTECTED blocks and one in
   * {@value LruTier#MEMORY_HIT_SAMPLE} on MEMORY blocks (see {@link LruTier}'s class comment).
   * Written under the eviction lock, read by every hit.
   */
  boolean quiet() {
    return quiet;
  }

  /** Recorded hits applied so far, a sampled one counted once (for tests). */
  long accessesApplied() {
    return accessesApplied;
  }

  /** Counts {@code requests}, of which {@code inserts} were inserts, toward {@link #quiet()}. */
  private void countForQuiet(int requests, int inserts) {
    periodRequests += requests;
    periodInserts += inserts;
    if (periodRequests >= QUIET_PERIOD) {
      quiet = periodInserts * QUIET_MISS_RATIO < periodRequests;
      periodRequests = 0;
      periodInserts = 0;
    }
  }

  /** Adds a new node and evicts as needed; evicted nodes are appended to {@code evicted}. */
  void add(Node n, List<Node> evicted) {
    climber.miss();
    countForQuiet(1, 1);
    climb();
    sketch.increment(n.hash);
    if (n.queue != Node.MEMORY) {
      sims.access(n.hash, n.weight, 1);
    }
    queueOf(n.queue).addLast(n);
    if (n.data) {
      dataWeight += n.weight;
      dataCount++;
    }
    evict(evicted);
  }

  /**
   * Whether a new block of {@code weight} with key hash {@code hash} would win its place if it
   * were added now: the cache has room for it, or its estimated frequency, counting the insert's
   * own sighting, beats that of PROBATION's oldest block (the block the TinyLFU duel would evict
   * for it), or with PROBATION empty that of PROTECTED's oldest (the block demoted into the duel
   * next); with both empty it wins, unless MEMORY gives way last (force mode or
   * {@link #setMemoryFirst}) and leaves no room for it, when it would be evicted at once. When
   * it would not win, the attempt is counted in the sketch as {@link #add} would count it, so a
   * block offered again and again still earns its place. A tie is a loss here even for a block
   * half the victim's weight ({@link #wins} lets it win in the duel itself): the combined cache
   * copies a block into the L1 only on this answer, and a copy is earned by frequency alone.
   */
  boolean wouldAdmit(int hash, long weight) {
    if (weight() + weight <= maxWeight) {
      return true;
    }
    // MEMORY gives way last (force mode, memory first): a block that does not fit beside it
    // would be the next to go, at once.
    boolean crowdedOut = (config.forceInMemory || memoryFirst)
        && memory.weight() + weight > maxWeight;
    Node victim = probation.isEmpty() ? protectedQ.first() : probation.first();
    if (!crowdedOut
        && (victim == null || sketch.frequency(hash) + 1 > sketch.frequency(victim.hash))) {
      return true;
    }
    sketch.increment(hash);
    stats.admissionReject();
    return false;
  }

  /** Removes a node that left the cache for a reason other than capacity. */
  void remove(Node n) {
    unlink(n);
  }

  /**
   * Records a hit on {@code n}, drained from the read buffer. A hit recorded as one of a sample
   * ({@link Node#sampled}) stands for {@link LruTier#sampleRate} hits
   * ({@value LruTier#HOT_HIT_SAMPLE} on a PROTECTED block, {@value LruTier#MEMORY_HIT_SAMPLE} on a
   * MEMORY one): it counts that many for the window's climber and the quiet period, and adds that
   * many to the sketch's counters (capped at 15). A hit on a PROBATION block promotes it to
   * PROTECTED, which may demote PROTECTED's oldest ({@link #demoteProtectedOverTarget}).
   */
  void onAccess(Node n) {
    accessesApplied++;
    int hits = n.sampled ? LruTier.sampleRate(n) : 1;
    climber.hit(hits);
    countForQuiet(hits, 0);
    climb();
    byte q = n.queue;
    if (q == Node.REMOVED) {
      return;
    }
    sketch.increment(n.hash, hits);
    if (q != Node.MEMORY) {
      sims.access(n.hash, n.weight, hits);
    }
    if (q == Node.PROBATION) {
      probation.remove(n);
      n.queue = Node.PROTECTED;
      protectedQ.addLast(n);
      if (weight() + n.weight > maxWeight) {
        demoteProtectedOverTarget();
      }
    } else {
      queueOf(q).moveToLast(n);
    }
  }

  /**
   * A promotion in a cache within one block of its maximum, with PROTECTED over its target,
   * demotes PROTECTED's oldest blocks to PROBATION, at most {@value #DEMOTIONS_PER_PROMOTION}
   * (a segmented LRU's rule, bounded): hits are applied in batches of up to a read-buffer stripe
   * ({@link ReadBuffer#STRIPE_SIZE}) that an insert no longer applies first, so the promotions
   * between two inserts can be many, and with one demotion per eviction PROTECTED drifted over
   * its target. Two per promotion take PROTECTED back down by one block per promotion when its
   * target shrank (the climber, a jump of the window, a resize); the rest is left to
   * {@link #evict}, so that no hit's drain does work in proportion to the cache.
   */
  private void demoteProtectedOverTarget() {
    for (int i = 0; i < DEMOTIONS_PER_PROMOTION && protectedOverTarget() > 0
        && protectedQ.count() > 1; i++) {
      Node d = protectedQ.first();
      protectedQ.remove(d);
      d.queue = Node.PROBATION;
      probation.addLast(d);
    }
  }

  /** PROTECTED's weight over its target, which includes the in-memory share's spare room. */
  private long protectedOverTarget() {
    return protectedQ.weight() - multiTarget - Math.max(0, memoryTarget - memory.weight());
  }

  /** Evicts until the total weight fits the maximum; evicted nodes go to {@code evicted}. */
  void evict(List<Node> evicted) {
    Node admitted = null;
    if (weight() > maxWeight) {
      climber.start();
    }
    while (weight() > maxWeight) {
      byte share = shareToShrink();
      if (share == Node.MEMORY) {
        evicted.add(unlink(memory.first()));
      } else if (share == Node.PROTECTED) {
        Node n = protectedQ.first();
        protectedQ.remove(n);
        n.queue = Node.PROBATION;
        probation.addLast(n);
      } else {
        admitted = shrinkSingle(admitted, evicted);
      }
    }
    while (window.weight() > windowTarget && window.count() > 1) {
      Node n = window.first();
      window.remove(n);
      n.queue = Node.PROBATION;
      probation.addLast(n);
    }
  }

  /**
   * One eviction from the single share. {@code admitted} is the candidate that won the previous
   * duel in this eviction run: it keeps dueling, so a large candidate cannot displace several
   * older blocks unopposed.
   */
  private Node shrinkSingle(Node admitted, List<Node> evicted) {
    Node victim = probation.first();
    Node candidate = null;
    if (!window.isEmpty() && (window.weight() > windowTarget || victim == null)) {
      candidate = window.first();
    } else if (admitted != null && admitted.queue == Node.PROBATION) {
      candidate = admitted;
    }
    if (victim == null || candidate == null || candidate == victim) {
      evicted.add(unlink(victim != null ? victim : window.first()));
      return null;
    }
    if (admit(candidate, victim)) {
      evicted.add(unlink(victim));
      if (candidate.queue == Node.WINDOW) {
        window.remove(candidate);
        candidate.queue = Node.PROBATION;
        probation.addLast(candidate);
      }
      return candidate;
    }
    stats.admissionReject();
    evicted.add(unlink(candidate));
    return null;
  }

  private boolean admit(Node candidate, Node victim) {
    int c = sketch.frequency(candidate.hash);
    int v = sketch.frequency(victim.hash);
    if (wins(c, candidate.weight, v, victim.weight)) {
      return true;
    }
    if (c <= 5) {
      return false;
    }
    // Both warm and the candidate no hotter: admit now and then, so that an attacker who makes
    // one victim look hot through hash collisions cannot freeze the probation queue.
    return (random.nextInt() & 127) == 0;
  }

  /**
   * Whether a candidate of estimated frequency {@code c} and weight {@code cw} takes the place of
   * a victim of frequency {@code v} and weight {@code vw}: when it is read more often, or as often
   * and weighs at most 1/{@value #TIE_SIZE_FACTOR} of the victim, so that at equal frequency the
   * memory holds more blocks (more hits for the same bytes). Blocks of about one size, such as
   * HBase's 64 KB data blocks, which differ by the cell that crosses the block boundary, never
   * meet the factor: their ties stay with the incumbent, as in TinyLFU. On the showdown's
   * {@code zipf-mixed} cells (blocks of 4 to 512 KB) it raised {@code tiercache-l1}'s hit ratio
   * by 0.32 and 0.37 pt at 3x and 9x with 500 us misses, where a run is 100,000 reads and the
   * L1 had stayed under Caffeine's, and by 0.05 to 0.15 pt with page-cache misses
   * (docs/benchmarks.md, "A frequency tie goes to the smaller block").
   */
  static boolean wins(int c, long cw, int v, long vw) {
    return c > v || (c == v && cw <= vw / TIE_SIZE_FACTOR);
  }

  /**
   * The share to shrink. The multi share's target includes the in-memory share's spare room
   * (see the class comment). Shares over their target take turns, as HBase's LruBlockCache frees
   * from every over-share bucket: a share over its target converges to it under pressure, while
   * shares under target are left alone. With in-memory force mode MEMORY takes a turn only when
   * the other shares are empty. If no share is over target (possible only in force mode), the
   * fullest non-empty share gives way.
   */
  private byte shareToShrink() {
    long single = window.weight() + probation.weight();
    boolean othersEmpty = single == 0 && protectedQ.isEmpty();
    long[] over = {
      single > 0 ? single - singleTarget : Long.MIN_VALUE,
      protectedQ.isEmpty() ? Long.MIN_VALUE : protectedOverTarget(),
      memory.isEmpty() || ((config.forceInMemory || memoryFirst) && !othersEmpty)
          ? Long.MIN_VALUE : memory.weight() - memoryTarget
    };
    for (int i = 0; i < SHARES.length; i++) {
      int share = (turn + i) % SHARES.length;
      if (over[share] > 0) {
        turn = share + 1;
        return SHARES[share];
      }
    }
    int fullest = 0;
    for (int share = 1; share < SHARES.length; share++) {
      if (over[share] > over[fullest]) {
        fullest = share;
      }
    }
    return SHARES[fullest];
  }

  private Node unlink(Node n) {
    queueOf(n.queue).remove(n);
    n.queue = Node.REMOVED;
    if (n.data) {
      dataWeight -= n.weight;
      dataCount--;
    }
    return n;
  }

  private NodeDeque queueOf(byte q) {
    switch (q) {
      case Node.WINDOW:
        return window;
      case Node.PROBATION:
        return probation;
      case Node.PROTECTED:
        return protectedQ;
      case Node.MEMORY:
        return memory;
      default:
        throw new IllegalStateException("node is not in any queue");
    }
  }

  /** Recounts every queue; throws naming the first mismatch. */
  void checkInvariants(long mapSize) {
    long w = 0;
    long c = 0;
    NodeDeque[] queues = {window, probation, protectedQ, memory};
    String[] names = {"window", "probation", "protected", "memory"};
    for (int i = 0; i < queues.length; i++) {
      long[] real = queues[i].recount();
      if (real[0] != queues[i].weight() || real[1] != queues[i].count()) {
        throw new IllegalStateException(names[i] + " queue says " + queues[i].weight() + "B/"
            + queues[i].count() + " blocks, holds " + real[0] + "B/" + real[1]);
      }
      w += real[0];
      c += real[1];
    }
    if (c != mapSize) {
      throw new IllegalStateException("policy holds " + c + " blocks, index " + mapSize);
    }
    if (w > maxWeight) {
      throw new IllegalStateException("weight " + w + " exceeds maximum " + maxWeight);
    }
    if (windowShare < 0 || windowShare > maxWindowShare()) {
      throw new IllegalStateException("window share " + windowShare + " outside [0, "
          + maxWindowShare() + "]");
    }
    if (dataWeight < 0 || dataCount < 0 || dataWeight > w || dataCount > c) {
      throw new IllegalStateException("data accounting off: " + dataWeight + "B/" + dataCount);
    }
  }
}
