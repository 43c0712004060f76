/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

/** The contract on the multi-file engine. */
class BucketTierFilesContractTest extends BucketTierContract {
  @Override
  String engine() {
    return "files:" + dir.resolve("a.cache") + "," + dir.resolve("b.cache");
  }
}
