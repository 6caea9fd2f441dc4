package io.kvpool.it;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/** What a Java client's metrics (its own Prometheus registry) have counted so far. */
final class ClientCounts {
  private ClientCounts() {}

  /** Exchanges of the client with {@code opcode} ({@code kvpool_client_rpc_duration_seconds}). */
  static long exchanges(PrometheusRegistry registry, String opcode) {
    long n = 0;
    for (MetricSnapshot s : registry.scrape()) {
      if (s instanceof HistogramSnapshot h && named(h, "kvpool_client_rpc_duration_seconds")) {
        for (HistogramSnapshot.HistogramDataPointSnapshot p : h.getDataPoints()) {
          n += opcode.equals(p.getLabels().get("opcode")) ? p.getCount() : 0;
        }
      }
    }
    return n;
  }

  /**
   * Exchanges with storage node {@code nodeId} that failed or timed out ({@code
   * kvpool_client_node_failures_total}).
   */
  static long nodeFailures(PrometheusRegistry registry, String nodeId) {
    return (long)
        registry.scrape().stream()
            .filter(s -> s instanceof CounterSnapshot && named(s, "kvpool_client_node_failures"))
            .flatMap(s -> ((CounterSnapshot) s).getDataPoints().stream())
            .filter(p -> nodeId.equals(p.getLabels().get("node")))
            .mapToDouble(CounterSnapshot.CounterDataPointSnapshot::getValue)
            .sum();
  }

  private static boolean named(MetricSnapshot s, String prometheusName) {
    return s.getMetadata().getPrometheusName().equals(prometheusName);
  }
}
