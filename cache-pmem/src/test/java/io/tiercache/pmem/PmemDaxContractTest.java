/*
 * Licensed under the Apache License, Version 2.0 (see LICENSE).
 */
package io.tiercache.pmem;

/** The contract on the pure-Java DAX back end. */
class PmemDaxContractTest extends PmemContract {
  @Override
  String backend() {
    return "dax";
  }
}
