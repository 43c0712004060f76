/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A test engine that wraps a real one and injects faults, seeded: {@link IOException}s on chosen
 * operations at a chosen rate, short writes (a prefix of the bytes written, then the exception,
 * as a device that fails mid-write), and latency. Every fault keeps to the {@link Engine}
 * contract: an operation either completes or throws.
 *
 * <p>An L2 opens it by name through {@link Provider} (listed in this module's test
 * {@code META-INF/services}): {@code ioengine = faulty:INNER#ID}, e.g.
 * {@code faulty:offheap#t1} or {@code faulty:file:/tmp/x.cache#t2}; the test then takes the
 * engine with {@link #opened(String) opened(ID)} and sets its faults. With
 * {@link #copyReads(boolean)} a memory engine is read through {@link #read} (a copy, so read
 * faults apply and the L2 checks every read's CRC32C) instead of {@link #view}.
 *
 * <p>Thread safe; the random draws are serialised, so one thread's sequence of faults is a pure
 * function of the seed (several threads interleave theirs).
 */
public final class FaultyEngine implements Engine {
  /** The operations a fault can be put on. */
  public enum Op {
    READ, WRITE, SYNC, VIEW
  }

  private static final Map<String, FaultyEngine> OPENED = new ConcurrentHashMap<>();

  private final Engine inner;
  private final String id;
  private final Map<Op, Double> rates = new EnumMap<>(Op.class); // guarded by this
  /** Unchecked failures (an {@link Error}, a bug's RuntimeException) thrown on every call. */
  private final Map<Op, Supplier<? extends Throwable>> unchecked = new EnumMap<>(Op.class);
  private final Map<Op, Long> latencyNanos = new EnumMap<>(Op.class); // guarded by this
  private final Map<Op, AtomicLong> injected = new EnumMap<>(Op.class);
  private final Map<Op, AtomicLong> calls = new EnumMap<>(Op.class);
  private SplittableRandom rnd; // guarded by this
  private boolean shortWrites; // guarded by this
  private volatile boolean copyReads;

  FaultyEngine(Engine inner, String id, long seed) {
    this.inner = inner;
    this.id = id;
    this.rnd = new SplittableRandom(seed);
    for (Op op : Op.values()) {
      rates.put(op, 0.0);
      latencyNanos.put(op, 0L);
      injected.put(op, new AtomicLong());
      calls.put(op, new AtomicLong());
    }
  }

  /** The {@code ioengine} value for a faulty engine over {@code inner}, known as {@code id}. */
  public static String spec(String inner, String id) {
    return "faulty:" + inner + "#" + id;
  }

  /** The engine opened as {@code id} (the last one, if it was opened again). */
  public static FaultyEngine opened(String id) {
    FaultyEngine e = OPENED.get(id);
    if (e == null) {
      throw new IllegalStateException("no faulty engine opened as " + id);
    }
    return e;
  }

  /** Restarts the random draws from {@code seed}. */
  public synchronized FaultyEngine seed(long seed) {
    rnd = new SplittableRandom(seed);
    return this;
  }

  /** Fails {@code op} with this probability (0 never, 1 always). */
  public synchronized FaultyEngine failRate(Op op, double probability) {
    rates.put(op, probability);
    return this;
  }

  /** Whether a failed write first writes a random prefix of its bytes. */
  public synchronized FaultyEngine shortWrites(boolean on) {
    shortWrites = on;
    return this;
  }

  /** Delays every {@code op} by {@code nanos} (parked, not spinning). */
  public synchronized FaultyEngine latency(Op op, long nanos) {
    latencyNanos.put(op, nanos);
    return this;
  }

  /** Reads through {@link #read} even if the inner engine is zero-copy. */
  public FaultyEngine copyReads(boolean on) {
    copyReads = on;
    return this;
  }

  /**
   * Every later call of {@code op} throws what {@code failure} makes, an {@link Error} or a
   * {@link RuntimeException}: the failures beyond I/O errors a Java engine can raise (a store into
   * a mapped page the file system cannot back surfaces as {@link InternalError}); null stops it.
   */
  public synchronized FaultyEngine throwOn(Op op, Supplier<? extends Throwable> failure) {
    if (failure == null) {
      unchecked.remove(op);
    } else {
      unchecked.put(op, failure);
    }
    return this;
  }

  /** No more faults or latency. */
  public synchronized FaultyEngine healthy() {
    for (Op op : Op.values()) {
      rates.put(op, 0.0);
      latencyNanos.put(op, 0L);
    }
    unchecked.clear();
    return this;
  }

  private void throwUnchecked(Op op) {
    Supplier<? extends Throwable> failure;
    synchronized (this) {
      failure = unchecked.get(op);
    }
    if (failure == null) {
      return;
    }
    injected.get(op).incrementAndGet();
    Throwable t = failure.get();
    if (t instanceof Error) {
      throw (Error) t;
    }
    throw (RuntimeException) t;
  }

  /** Faults injected so far on {@code op}. */
  public long injected(Op op) {
    return injected.get(op).get();
  }

  /** Calls of {@code op} so far, failed or not. */
  public long calls(Op op) {
    return calls.get(op).get();
  }

  /** Draws whether this call of {@code op} fails; a negative prefix length unless a write. */
  private synchronized long decide(Op op, int length) {
    double p = rates.get(op);
    boolean fail = p >= 1 || (p > 0 && rnd.nextDouble() < p);
    if (!fail) {
      return -1;
    }
    return op == Op.WRITE && shortWrites && length > 0 ? rnd.nextInt(length) : 0;
  }

  private void delay(Op op) {
    long nanos;
    synchronized (this) {
      nanos = latencyNanos.get(op);
    }
    if (nanos > 0) {
      LockSupport.parkNanos(nanos);
    }
  }

  private IOException fault(Op op, long offset) {
    injected.get(op).incrementAndGet();
    return new IOException("injected " + op + " fault at " + offset + " (" + id + ")");
  }

  @Override
  public long capacity() {
    return inner.capacity();
  }

  @Override
  public int slabSize() {
    return inner.slabSize();
  }

  @Override
  public boolean isZeroCopy() {
    return inner.isZeroCopy() && !copyReads;
  }

  @Override
  public boolean isPersistent() {
    return inner.isPersistent();
  }

  @Override
  public ByteBuffer view(long offset, int length) {
    calls.get(Op.VIEW).incrementAndGet();
    throwUnchecked(Op.VIEW);
    return inner.view(offset, length);
  }

  @Override
  public void read(long offset, ByteBuffer dst) throws IOException {
    calls.get(Op.READ).incrementAndGet();
    throwUnchecked(Op.READ);
    delay(Op.READ);
    if (decide(Op.READ, dst.remaining()) >= 0) {
      throw fault(Op.READ, offset);
    }
    inner.read(offset, dst);
  }

  @Override
  public void write(long offset, ByteBuffer src) throws IOException {
    calls.get(Op.WRITE).incrementAndGet();
    throwUnchecked(Op.WRITE);
    delay(Op.WRITE);
    long prefix = decide(Op.WRITE, src.remaining());
    if (prefix < 0) {
      inner.write(offset, src);
      return;
    }
    if (prefix > 0) {
      ByteBuffer part = src.duplicate();
      part.limit(part.position() + (int) prefix);
      inner.write(offset, part);
    }
    throw fault(Op.WRITE, offset);
  }

  @Override
  public void sync() throws IOException {
    calls.get(Op.SYNC).incrementAndGet();
    throwUnchecked(Op.SYNC);
    delay(Op.SYNC);
    if (decide(Op.SYNC, 0) >= 0) {
      throw fault(Op.SYNC, -1);
    }
    inner.sync();
  }

  @Override
  public String describe() {
    return spec(inner.describe(), id);
  }

  @Override
  public void close() throws IOException {
    inner.close();
  }

  /** Serves {@code faulty:INNER#ID}. */
  public static final class Provider implements EngineProvider {
    @Override
    public String scheme() {
      return "faulty";
    }

    @Override
    public Engine open(String path, long capacity, int slabSize) throws IOException {
      int hash = path.lastIndexOf('#');
      if (hash < 0) {
        throw new IOException("faulty engine '" + path + "' has no #ID");
      }
      String id = path.substring(hash + 1);
      Engine inner = Engines.open(path.substring(0, hash), capacity, slabSize);
      FaultyEngine e = new FaultyEngine(inner, id, id.hashCode());
      OPENED.put(id, e);
      return e;
    }
  }
}
