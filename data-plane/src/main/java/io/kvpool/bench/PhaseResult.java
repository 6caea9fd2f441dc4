package io.kvpool.bench;

import java.util.Map;

/** What one phase (put or get) of one target measured; {@code cpuNanos} per process group. */
record PhaseResult(String target, String operation, long ops, long bytes, long wallNanos, double p50Micros,
    double p99Micros, Map<String, Long> cpuNanos) {

  static PhaseResult of(String target, String operation, long bytesPerOp, long wallNanos, Latencies latencies,
      Map<String, Long> cpuNanos) {
    return new PhaseResult(target, operation, latencies.count(), latencies.count() * bytesPerOp, wallNanos,
        latencies.percentileMicros(0.50), latencies.percentileMicros(0.99), cpuNanos);
  }

  /** CPU microseconds per operation of one process group, or of all when {@code group} is null. */
  double cpuMicrosPerOp(String group) {
    long nanos = group == null ? cpuNanos.values().stream().mapToLong(Long::longValue).sum()
        : cpuNanos.getOrDefault(group, 0L);
    return ops == 0 ? 0 : nanos / 1e3 / ops;
  }

  /** Decimal gigabytes (1e9 bytes) per second of wall time. */
  double gigabytesPerSecond() {
    return wallNanos == 0 ? 0 : bytes / (double) wallNanos;
  }

  double opsPerSecond() {
    return wallNanos == 0 ? 0 : ops * 1e9 / wallNanos;
  }
}
