/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

/** The contract on the memory-mapped engine (zero-copy reads). */
class BucketTierMmapContractTest extends BucketTierContract {
  @Override
  String engine() {
    return "mmap:" + dir.resolve("l2.mmap");
  }
}
