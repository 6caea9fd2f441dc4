package io.kvpool.bench.compare;

import java.util.Map;

/**
 * What one phase of one target measured in one round: operations, bytes and wall time, latency
 * percentiles (p50, p90, p99, p99.9 in microseconds) and CPU microseconds per operation by process
 * group. {@code notes} holds extras such as a client's location-cache hit ratio.
 */
record Measurement(
    String workload,
    String target,
    String op,
    int round,
    long ops,
    long bytes,
    long wallNanos,
    double[] latencyMicros,
    Map<String, Double> cpuMicrosPerOp,
    Map<String, Object> notes) {

  double gigabytesPerSecond() {
    return wallNanos == 0 ? 0 : bytes / (double) wallNanos;
  }

  double opsPerSecond() {
    return wallNanos == 0 ? 0 : ops * 1e9 / wallNanos;
  }

  double totalCpuMicrosPerOp() {
    return cpuMicrosPerOp.values().stream().mapToDouble(Double::doubleValue).sum();
  }
}
