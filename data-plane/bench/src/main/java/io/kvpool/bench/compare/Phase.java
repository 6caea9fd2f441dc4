package io.kvpool.bench.compare;

/**
 * How long phases last: a put phase writes the working set once (or stops after {@code
 * putMaxSeconds}), a get phase reads it for {@code getSeconds}. With {@code prefillBytes}, that
 * many bytes of values are put under other fresh keys first, untimed (single values only): to
 * measure puts into a pool that is already full.
 */
record Phase(long workingSetBytes, double putMaxSeconds, double getSeconds, long prefillBytes) {

  Phase(long workingSetBytes, double putMaxSeconds, double getSeconds) {
    this(workingSetBytes, putMaxSeconds, getSeconds, 0);
  }

  /** Keys per client for a workload: the working set split between its clients, whole batches. */
  int keysPerClient(Workload w) {
    return keysPerClient(w, workingSetBytes);
  }

  /** Keys per client for {@code bytes} of values. */
  static int keysPerClient(Workload w, long bytes) {
    long perClient = bytes / w.clients() / w.valueSize();
    long keys = Math.max(w.batch(), perClient / w.batch() * w.batch());
    return (int) Math.min(keys, 65_536);
  }
}
