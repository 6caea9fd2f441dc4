package io.kvpool.bench.compare;

/**
 * How long phases last: a put phase writes the working set once (or stops after {@code
 * putMaxSeconds}), a get phase reads it for {@code getSeconds}.
 */
record Phase(long workingSetBytes, double putMaxSeconds, double getSeconds) {

  /** Keys per client for a workload: the working set split between its clients, whole batches. */
  int keysPerClient(Workload w) {
    long perClient = workingSetBytes / w.clients() / w.valueSize();
    long keys = Math.max(w.batch(), perClient / w.batch() * w.batch());
    return (int) Math.min(keys, 65_536);
  }
}
