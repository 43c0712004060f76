/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

/** The contract on the Intel LLPL back end (needs libpmemobj1 and libpmempool1). */
class PmemLlplContractTest extends PmemContract {
  @Override
  String backend() {
    return "llpl";
  }
}
