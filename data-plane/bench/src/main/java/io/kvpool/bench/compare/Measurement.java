package io.kvpool.bench.compare;

import java.util.Map;

/**
 * What one phase of one target measured in one round: operations, bytes and wall time, latency
 * percentiles (p50, p90, p99, p99.9 in microseconds) and CPU microseconds per operation by process
 * group, with the JVMs' JIT compilation in it. {@code notes} holds extras such as a client's
 * location-cache hit ratio.
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
    CpuPerOp cpu,
    Map<String, Object> notes) {

  double gigabytesPerSecond() {
    return wallNanos == 0 ? 0 : bytes / (double) wallNanos;
  }

  double opsPerSecond() {
    return wallNanos == 0 ? 0 : ops * 1e9 / wallNanos;
  }

  /** CPU microseconds per operation by process group, JIT compilation included. */
  Map<String, Double> cpuMicrosPerOp() {
    return cpu.micros();
  }

  double totalCpuMicrosPerOp() {
    return cpu.micros().values().stream().mapToDouble(Double::doubleValue).sum();
  }
}
