/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.lru;

/**
 * An intrusive doubly linked list of {@link Node}s in access order: the head is the least
 * recently used, the tail the most recently used. Tracks the summed weight of its nodes.
 *
 * <p>Not thread safe: guarded by the L1's eviction lock.
 */
final class NodeDeque {
  private Node head;
  private Node tail;
  private long weight;
  private int count;

  Node first() {
    return head;
  }

  long weight() {
    return weight;
  }

  int count() {
    return count;
  }

  boolean isEmpty() {
    return head == null;
  }

  void addLast(Node n) {
    n.prev = tail;
    n.next = null;
    if (tail == null) {
      head = n;
    } else {
      tail.next = n;
    }
    tail = n;
    weight += n.weight;
    count++;
  }

  void remove(Node n) {
    if (n.prev == null) {
      head = n.next;
    } else {
      n.prev.next = n.next;
    }
    if (n.next == null) {
      tail = n.prev;
    } else {
      n.next.prev = n.prev;
    }
    n.prev = null;
    n.next = null;
    weight -= n.weight;
    count--;
  }

  void moveToLast(Node n) {
    if (n != tail) {
      remove(n);
      addLast(n);
    }
  }

  /** Walks the list and returns its true weight and count, for invariant checks. */
  long[] recount() {
    long w = 0;
    long c = 0;
    for (Node n = head; n != null; n = n.next) {
      w += n.weight;
      c++;
    }
    return new long[] {w, c};
  }
}
