package io.kvpool.bench.compare;

import java.util.Arrays;

/** Latencies of one client thread in nanoseconds; merged after a phase into percentiles. */
final class LatencyLog {
  private long[] nanos = new long[4096];
  private int count;

  void add(long value) {
    if (count == nanos.length) {
      nanos = Arrays.copyOf(nanos, count * 2);
    }
    nanos[count++] = value;
  }

  int count() {
    return count;
  }

  /** p50, p90, p99 and p99.9 in microseconds over all logs (nearest rank). */
  static double[] percentiles(LatencyLog... logs) {
    int total = 0;
    for (LatencyLog l : logs) {
      total += l == null ? 0 : l.count;
    }
    long[] all = new long[total];
    int at = 0;
    for (LatencyLog l : logs) {
      if (l != null) {
        System.arraycopy(l.nanos, 0, all, at, l.count);
        at += l.count;
      }
    }
    Arrays.sort(all);
    double[] qs = {0.5, 0.9, 0.99, 0.999};
    double[] out = new double[qs.length];
    for (int i = 0; i < qs.length; i++) {
      if (total > 0) {
        int rank = (int) Math.ceil(qs[i] * total) - 1;
        out[i] = all[Math.max(0, Math.min(total - 1, rank))] / 1e3;
      }
    }
    return out;
  }
}
