package io.kvpool.bench.chaos;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/**
 * How the soak's single puts that could go through an extent were stored: through one (protocol
 * 2.4) or through PUT_START (no extent granted, or one refused or failed), as its clients counted
 * them ({@code kvpool_client_extent_puts_total}).
 */
record ExtentPaths(long throughExtents, long throughPutStart) {

  /** The counts in {@code clientMetrics}, the registry every client of the soak shares. */
  static ExtentPaths of(PrometheusRegistry clientMetrics) {
    long extents = 0;
    long putStart = 0;
    for (MetricSnapshot m : clientMetrics.scrape()) {
      if (m instanceof CounterSnapshot c
          && c.getMetadata().getPrometheusName().equals("kvpool_client_extent_puts")) {
        for (CounterSnapshot.CounterDataPointSnapshot p : c.getDataPoints()) {
          switch (p.getLabels().get("path")) {
            case "extent" -> extents += (long) p.getValue();
            case "put_start" -> putStart += (long) p.getValue();
            default -> {}
          }
        }
      }
    }
    return new ExtentPaths(extents, putStart);
  }
}
