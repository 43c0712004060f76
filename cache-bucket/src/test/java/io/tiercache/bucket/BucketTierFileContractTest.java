/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.bucket;

/** The contract on the file engine (copying reads). */
class BucketTierFileContractTest extends BucketTierContract {
  @Override
  String engine() {
    return "file:" + dir.resolve("l2.cache");
  }
}
