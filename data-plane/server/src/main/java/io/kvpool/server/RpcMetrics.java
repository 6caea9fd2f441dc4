package io.kvpool.server;

import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Opcode;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * Latency histograms of every request a server serves, by opcode ({@code kvpool_rpc_server_duration_seconds}: from
 * its frame read to its reply written, payloads included), and its refusals by opcode and error code
 * ({@code kvpool_rpc_server_errors_total}). The data point of each opcode is resolved once, so a request costs one
 * lock-free update.
 */
public final class RpcMetrics {
  /** Bucket bounds in seconds: 50 µs (a metadata request on loopback) to 30 s (a payload's deadline). */
  public static final double[] BUCKETS = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
      0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

  private final Histogram duration;
  private final Counter errors;
  private final DistributionDataPoint[] byOpcode = new DistributionDataPoint[64];

  public RpcMetrics(PrometheusRegistry registry) {
    this.duration = Histogram.builder().name("kvpool_rpc_server_duration_seconds")
        .help("Time to serve one request, from its frame read to its reply written (payloads included), by opcode")
        .unit(Unit.SECONDS).labelNames("opcode").classicUpperBounds(BUCKETS).classicOnly().withoutExemplars()
        .register(registry);
    this.errors = Counter.builder().name("kvpool_rpc_server_errors_total")
        .help("Requests answered with an error, by opcode and error code").labelNames("opcode", "code")
        .withoutExemplars().register(registry);
  }

  /** Records one served request; {@code error} is the code it was refused with, or null. */
  void served(Opcode op, long nanos, ErrorCode error) {
    DistributionDataPoint p = byOpcode[op.code()];
    if (p == null) {
      // resolved on first use, so that only the opcodes a server serves appear; a race resolves the same point twice
      p = duration.labelValues(op.name());
      byOpcode[op.code()] = p;
    }
    p.observe(nanos / 1e9);
    if (error != null) {
      errors.labelValues(op.name(), error.name()).inc();
    }
  }
}
