package io.kvpool.bench;

import java.util.Arrays;

/** Per-operation latencies in nanoseconds; one instance per client thread, merged after a phase. */
final class Latencies {
  private long[] nanos = new long[1024];
  private int count;

  void add(long value) {
    if (count == nanos.length) {
      nanos = Arrays.copyOf(nanos, count * 2);
    }
    nanos[count++] = value;
  }

  void addAll(Latencies other) {
    for (int i = 0; i < other.count; i++) {
      add(other.nanos[i]);
    }
  }

  int count() {
    return count;
  }

  /** The q-quantile (0 < q ≤ 1) in microseconds, nearest-rank; 0 when nothing was recorded. */
  double percentileMicros(double q) {
    if (count == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(nanos, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(q * count) - 1;
    return sorted[Math.max(0, Math.min(count - 1, rank))] / 1_000.0;
  }
}
