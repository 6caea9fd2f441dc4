package io.kvpool.rpc;

import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Opcode;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.function.IntSupplier;

/**
 * What a server counts of its connections — closed by reason, refused handshakes by reason,
 * authentication failures, version mismatches, open connections by state, the room left in its body
 * budgets — and latency histograms of every request it serves, by opcode ({@code
 * kvpool_rpc_server_duration_seconds}: from its frame read to its reply written, payloads
 * included), and its refusals by opcode and error code ({@code kvpool_rpc_server_errors_total}).
 * The data point of each opcode is resolved once, so a request costs one lock-free update.
 */
public final class RpcMetrics {
  /**
   * Bucket bounds in seconds: 50 µs (a metadata request on loopback) to 30 s (a payload's
   * deadline).
   */
  public static final double[] BUCKETS = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    2.5, 5, 10, 30
  };

  private final Histogram duration;
  private final Counter errors;
  private final Counter versionMismatches;
  private final Counter closedConnections;
  private final Counter refusedConnections;
  private final Counter acceptedSessions;
  private final Counter authFailures;
  private final DistributionDataPoint[] byOpcode = new DistributionDataPoint[64];

  /** Metrics of a server whose connection gauges read these counts. */
  RpcMetrics(
      PrometheusRegistry registry,
      IntSupplier handshaking,
      IntSupplier sessions,
      IntSupplier clientBudget,
      IntSupplier controlBudget) {
    this(registry);
    GaugeWithCallback.builder()
        .name("kvpool_connections")
        .help("Open connections by state")
        .labelNames("state")
        .callback(
            cb -> {
              cb.call(handshaking.getAsInt(), "handshake");
              cb.call(sessions.getAsInt(), "session");
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("kvpool_body_budget_available_bytes")
        .help("Room left for large bodies being received from clients")
        .callback(cb -> cb.call(clientBudget.getAsInt()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("kvpool_control_body_budget_available_bytes")
        .help("Room left for large bodies being received from storage nodes and masters")
        .callback(cb -> cb.call(controlBudget.getAsInt()))
        .register(registry);
  }

  private RpcMetrics(PrometheusRegistry registry) {
    this.duration =
        Histogram.builder()
            .name("kvpool_rpc_server_duration_seconds")
            .help(
                "Time to serve one request, from its frame read to its reply written (payloads included), by opcode")
            .unit(Unit.SECONDS)
            .labelNames("opcode")
            .classicUpperBounds(BUCKETS)
            .classicOnly()
            .withoutExemplars()
            .register(registry);
    this.errors =
        Counter.builder()
            .name("kvpool_rpc_server_errors_total")
            .help("Requests answered with an error, by opcode and error code")
            .labelNames("opcode", "code")
            .withoutExemplars()
            .register(registry);
    this.versionMismatches =
        Counter.builder()
            .name("kvpool_version_mismatch_total")
            .help("Connections refused for protocol version skew")
            .register(registry);
    this.closedConnections =
        Counter.builder()
            .name("kvpool_connections_closed_total")
            .help(
                "Connections the server closed, by reason: handshake_timeout, idle, frame_timeout, payload_timeout,"
                    + " write_timeout, handshake_evicted, malformed, internal_error")
            .labelNames("reason")
            .register(registry);
    this.refusedConnections =
        Counter.builder()
            .name("kvpool_connections_refused_total")
            .help("Handshakes refused, by reason: busy, version_mismatch, pool_mismatch, other")
            .labelNames("reason")
            .register(registry);
    this.acceptedSessions =
        Counter.builder()
            .name("kvpool_sessions_accepted_total")
            .help(
                "Handshakes accepted, by the peer's role (client, storage, master): a steady rise"
                    + " under steady traffic means peers do not reuse their connections")
            .labelNames("role")
            .register(registry);
    this.authFailures =
        Counter.builder()
            .name("kvpool_auth_failures_total")
            .help(
                "Peers refused by authentication, by reason: no_key, unknown_key, role, bad_proof")
            .labelNames("reason")
            .register(registry);
  }

  void closed(String reason) {
    closedConnections.labelValues(reason).inc();
  }

  /** A refused handshake, by the code it was refused with. */
  void refused(ErrorCode code) {
    if (code == ErrorCode.VERSION_MISMATCH) {
      versionMismatches.inc();
    }
    refusedConnections
        .labelValues(
            switch (code) {
              case VERSION_MISMATCH -> "version_mismatch";
              case POOL_MISMATCH -> "pool_mismatch";
              case BUSY -> "busy";
              default -> "other";
            })
        .inc();
  }

  void accepted(io.kvpool.protocol.Role role) {
    acceptedSessions.labelValues(role.name().toLowerCase(java.util.Locale.ROOT)).inc();
  }

  void authFailed(String reason) {
    authFailures.labelValues(reason).inc();
  }

  long versionMismatches() {
    return (long) versionMismatches.get();
  }

  /** Records one served request; {@code error} is the code it was refused with, or null. */
  void served(Opcode op, long nanos, ErrorCode error) {
    DistributionDataPoint p = byOpcode[op.code()];
    if (p == null) {
      // resolved on first use, so that only the opcodes a server serves appear; a race resolves the
      // same point twice
      p = duration.labelValues(op.name());
      byOpcode[op.code()] = p;
    }
    p.observe(nanos / 1e9);
    if (error != null) {
      errors.labelValues(op.name(), error.name()).inc();
    }
  }
}
