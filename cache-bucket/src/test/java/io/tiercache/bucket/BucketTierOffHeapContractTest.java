/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

/** The contract on the off-heap engine (zero-copy reads). */
class BucketTierOffHeapContractTest extends BucketTierContract {
  @Override
  String engine() {
    return "offheap";
  }
}
