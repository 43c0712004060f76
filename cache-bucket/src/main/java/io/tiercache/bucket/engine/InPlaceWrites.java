/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.engine;

import java.nio.ByteBuffer;

/**
 * An engine whose slots the L2 can write in place: the block is serialized straight into the
 * slot's memory, one copy instead of a copy into a scratch buffer and another into the engine.
 * Memory engines ({@code offheap}, {@code mmap}) implement it; {@code file} engines do not.
 *
 * <p>Contract: the caller owns {@code [address, address + length)} (an allocated slot not yet
 * published in the index, so no reader can see it) until it publishes or frees the slot. Valid
 * until {@link Engine#close()}, like {@link Engine#view}.
 */
public interface InPlaceWrites {
  /** A writable buffer over {@code [address, address + length)}: position 0, limit length. */
  ByteBuffer writable(long address, int length);
}
