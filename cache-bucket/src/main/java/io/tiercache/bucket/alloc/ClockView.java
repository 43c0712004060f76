/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket.alloc;

import io.tiercache.bucket.evict.Clock;

/**
 * What {@link Clock} sees of one size class of a {@link SlabAllocator}: its slabs in the
 * allocator's per-class order, their hands, and their slots' state words and frequencies.
 *
 * <p>Used under the allocator's lock only, which guards everything it reads and writes but the
 * frequencies (racy hints).
 */
final class ClockView implements Clock.ClassSlots {
  private final SlabAllocator a;
  private final int c;

  private int examined; // under the allocator's lock: slots the last victim() visited

  /** Slots the last {@code Clock.victim} call visited; resets the count. */
  int takeExamined() {
    int n = examined;
    examined = 0;
    return n;
  }

  @Override
  public void examined(int slots) {
    examined += slots;
  }

  ClockView(SlabAllocator a, int c) {
    this.a = a;
    this.c = c;
  }

  private Slab at(int position) {
    return a.byClass.get(c).get(position);
  }

  @Override
  public int slabs() {
    return a.byClass.get(c).size();
  }

  @Override
  public int slotsPerSlab() {
    return a.classes().slotsPerSlab(c);
  }

  @Override
  public int slabHand(int hand) {
    return a.handSlab[hand][c];
  }

  @Override
  public void slabHand(int hand, int position) {
    a.handSlab[hand][c] = position;
  }

  @Override
  public int slots(int position) {
    return at(position).slots;
  }

  @Override
  public boolean draining(int position) {
    return a.draining[at(position).index];
  }

  @Override
  public int slotHand(int hand, int position) {
    return at(position).hands[hand];
  }

  @Override
  public void slotHand(int hand, int position, int slot) {
    at(position).hands[hand] = slot;
  }

  @Override
  public int state(int position, int slot) {
    return at(position).state(slot);
  }

  @Override
  public boolean isPublished(int state) {
    return SlotState.isLive(state);
  }

  @Override
  public boolean isPinned(int state) {
    return SlotState.isPinned(state);
  }

  @Override
  public int freq(int position, int slot) {
    return at(position).freq(slot);
  }

  @Override
  public void freq(int position, int slot, int freq) {
    at(position).setFreq(slot, freq);
  }

  @Override
  public long handle(int position, int slot) {
    return Handles.of(at(position).index, slot);
  }

  @Override
  public boolean isProtected(int state) {
    return SlotState.isProtected(state);
  }

  @Override
  public int protectedSlots() {
    return a.protectedSlots[c];
  }

  @Override
  public int protectedCap() {
    return (int) (slabs() * (long) slotsPerSlab() * a.protectedPercent() / 100);
  }

  @Override
  public void protect(int position, int slot, boolean on) {
    at(position).setProtected(slot, on);
    a.protectedSlots[c] += on ? 1 : -1;
  }
}
