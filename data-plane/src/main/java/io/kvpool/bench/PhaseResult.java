package io.kvpool.bench;

/** What one phase (put or get) of one target measured. */
record PhaseResult(String target, String operation, long ops, long bytes, long wallNanos, double p50Micros,
    double p99Micros) {

  static PhaseResult of(String target, String operation, long bytesPerOp, long wallNanos, Latencies latencies) {
    return new PhaseResult(target, operation, latencies.count(), latencies.count() * bytesPerOp, wallNanos,
        latencies.percentileMicros(0.50), latencies.percentileMicros(0.99));
  }

  /** Decimal gigabytes (1e9 bytes) per second of wall time. */
  double gigabytesPerSecond() {
    return wallNanos == 0 ? 0 : bytes / (double) wallNanos;
  }

  double opsPerSecond() {
    return wallNanos == 0 ? 0 : ops * 1e9 / wallNanos;
  }
}
