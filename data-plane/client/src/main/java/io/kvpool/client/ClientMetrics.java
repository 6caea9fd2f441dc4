package io.kvpool.client;

import io.kvpool.protocol.Opcode;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The Java client's metrics, in the Prometheus registry the application scrapes ({@link
 * ClientConfig.Builder#metrics}, by default the JVM's default registry): latency histograms of
 * every exchange with a master or storage node by opcode ({@code
 * kvpool_client_rpc_duration_seconds}) and of every operation end to end, retries and failovers
 * included ({@code kvpool_client_operation_duration_seconds}), and how gets found their replicas
 * ({@code kvpool_client_location_cache_total{result="hit|miss|stale"}}) and how puts were committed
 * ({@code kvpool_client_put_commits_total{by="nodes|put_end"}}) and, with extents on, which path
 * stored the puts that could go through an extent ({@code
 * kvpool_client_extent_puts_total{path="extent|put_start"}}), and the exchanges with a storage node
 * whose connection failed or timed out, by node ({@code kvpool_client_node_failures_total{node}}).
 * Clients sharing a registry share these series (registered once per registry).
 */
final class ClientMetrics {
  /** The operations of {@link KvPoolClient} that are timed. */
  enum Operation {
    PUT,
    PUT_BATCH,
    GET,
    GET_BATCH,
    EXISTS,
    REMOVE
  }

  private static final double[] BUCKETS = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    2.5, 5, 10, 30
  };
  private static final Map<PrometheusRegistry, ClientMetrics> BY_REGISTRY = new WeakHashMap<>();

  private final Histogram rpcDuration;
  private final DistributionDataPoint[] rpc = new DistributionDataPoint[64];
  private final DistributionDataPoint[] operations =
      new DistributionDataPoint[Operation.values().length];
  final CounterDataPoint cacheHits;
  final CounterDataPoint cacheMisses;
  final CounterDataPoint cacheStale;
  final CounterDataPoint commitsByNodes;
  final CounterDataPoint commitsByPutEnd;
  final CounterDataPoint extentPutsThroughExtents;
  final CounterDataPoint extentPutsThroughPutStart;
  private final Counter nodeFailures;

  private ClientMetrics(PrometheusRegistry registry) {
    Histogram rpcDuration =
        Histogram.builder()
            .name("kvpool_client_rpc_duration_seconds")
            .help(
                "One exchange of the client with a master or storage node, request sent to reply (and payload) read,"
                    + " by opcode")
            .unit(Unit.SECONDS)
            .labelNames("opcode")
            .classicUpperBounds(BUCKETS)
            .classicOnly()
            .withoutExemplars()
            .register(registry);
    Histogram operationDuration =
        Histogram.builder()
            .name("kvpool_client_operation_duration_seconds")
            .help("One client operation end to end, retries and failovers included, by operation")
            .unit(Unit.SECONDS)
            .labelNames("operation")
            .classicUpperBounds(BUCKETS)
            .classicOnly()
            .withoutExemplars()
            .register(registry);
    this.rpcDuration = rpcDuration;
    for (Operation op : Operation.values()) {
      operations[op.ordinal()] =
          operationDuration.labelValues(op.name().toLowerCase(java.util.Locale.ROOT));
    }
    Counter cache =
        labelled(
            registry,
            "kvpool_client_location_cache_total",
            "result",
            "Gets by how they found their"
                + " replicas: hit (a held replica list, no master round trip), miss (asked the master), stale (a held list a"
                + " storage node refused; then asked the master)");
    cacheHits = cache.labelValues("hit");
    cacheMisses = cache.labelValues("miss");
    cacheStale = cache.labelValues("stale");
    Counter commits =
        labelled(
            registry,
            "kvpool_client_put_commits_total",
            "by",
            "Puts by who committed them: nodes"
                + " (the storage nodes sent their receipts to the master themselves, no PUT_END; protocol 2.2) or put_end (the"
                + " client's PUT_END)");
    commitsByNodes = commits.labelValues("nodes");
    commitsByPutEnd = commits.labelValues("put_end");
    Counter extentPuts =
        labelled(
            registry,
            "kvpool_client_extent_puts_total",
            "path",
            "Puts a client with extents on could"
                + " put through an extent (one replica, no metadata, at most 256 KiB), by the path that took them: extent"
                + " (one EXTENT_WRITE, protocol 2.4) or put_start (no extent granted, e.g. no node has a free block"
                + " of 4 MiB in a pool full to its watermark, or one refused or failed: PUT_START instead)");
    extentPutsThroughExtents = extentPuts.labelValues("extent");
    extentPutsThroughPutStart = extentPuts.labelValues("put_start");
    nodeFailures =
        labelled(
            registry,
            "kvpool_client_node_failures_total",
            "node",
            "Exchanges with a storage node whose"
                + " connection failed or timed out, by node id; the client then reads that node last and places no puts on"
                + " it for a while (ClientConfig.Builder.failedNodeMemory)");
  }

  private static Counter labelled(
      PrometheusRegistry registry, String name, String label, String help) {
    return Counter.builder()
        .name(name)
        .help(help)
        .labelNames(label)
        .withoutExemplars()
        .register(registry);
  }

  static synchronized ClientMetrics in(PrometheusRegistry registry) {
    return BY_REGISTRY.computeIfAbsent(registry, ClientMetrics::new);
  }

  void exchange(Opcode op, long nanos) {
    DistributionDataPoint p = rpc[op.code()];
    if (p == null) {
      p =
          rpcDuration.labelValues(
              op.name()); // only opcodes the client uses appear; a race resolves it twice
      rpc[op.code()] = p;
    }
    p.observe(nanos / 1e9);
  }

  void nodeFailed(String nodeId) {
    nodeFailures.labelValues(nodeId).inc();
  }

  void operation(Operation op, long nanos) {
    operations[op.ordinal()].observe(nanos / 1e9);
  }
}
