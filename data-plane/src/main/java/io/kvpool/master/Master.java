package io.kvpool.master;

import io.kvpool.common.AdminHttpServer;
import io.kvpool.common.AdminHttpServer.Response;
import io.kvpool.common.HostPort;
import io.kvpool.common.MetricsRegistry;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcServer;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/** A running master: RPC server, periodic repair/expiry, admin HTTP. Also used in-process by tests. */
public final class Master implements AutoCloseable {
  private static final int MAX_CONNECTIONS = 512;

  private final MasterConfig config;
  private final MetricsRegistry metrics = new MetricsRegistry();
  private final MasterCounters counters = new MasterCounters(metrics);
  private final PoolMetadata metadata;
  private final RpcServer rpc;
  private final AdminHttpServer admin;
  private final ReplicaRepairer repairer;
  private final AtomicReference<PoolSnapshot> lastSnapshot = new AtomicReference<>();
  private volatile boolean serving;

  public Master(MasterConfig config, String host, int rpcPort, int adminPort) throws IOException {
    this.config = config;
    this.metadata = new PoolMetadata(config, System::currentTimeMillis, new ReplicaPlacement(new SecureRandom()), counters);
    RpcServer.Identity identity = new RpcServer.Identity(VersionInfo.CURRENT, Role.MASTER, config::poolId, "master");
    this.rpc = new RpcServer("master", host, rpcPort, identity, new MasterRequestHandler(metadata), MAX_CONNECTIONS,
        counters.versionMismatches());
    this.admin = new AdminHttpServer(host, adminPort);
    this.repairer = new ReplicaRepairer(metadata, config.poolId());
    registerGauges();
    admin.route("/health", (m, p) -> Response.text(200, "ok\n"))
        .route("/ready", (m, p) -> serving ? Response.text(200, "ready\n") : Response.text(503, "starting\n"))
        .route("/metrics", (m, p) -> {
          lastSnapshot.set(metadata.snapshot());
          return new Response(200, "text/plain; version=0.0.4; charset=utf-8", metrics.render());
        })
        .route("/status", (m, p) -> Response.json(200, status()))
        .route("/nodes/", this::nodeAction);
  }

  public Master start() {
    rpc.start();
    admin.start();
    repairer.start(Duration.ofMillis(Math.max(50, Math.min(500, config.nodeTtl().toMillis() / 10))));
    serving = true;
    return this;
  }

  public HostPort rpcEndpoint() throws IOException {
    return rpc.endpoint();
  }

  public HostPort adminEndpoint() {
    return admin.endpoint();
  }

  public PoolMetadata metadata() {
    return metadata;
  }

  public MasterCounters counters() {
    return counters;
  }

  private void registerGauges() {
    metrics.gauge("kvpool_capacity_bytes", "Memory offered by live storage nodes", () -> (double) snap().capacityBytes());
    metrics.gauge("kvpool_used_bytes", "Memory allocated to replicas", () -> (double) snap().usedBytes());
    metrics.gauge("kvpool_objects", "Objects in the table (pending included)", () -> (double) snap().objectCount());
    metrics.gauge("kvpool_leases_active", "Objects under a read lease", () -> (double) snap().activeLeases());
    metrics.gauge("kvpool_objects_under_replicated", "Objects waiting for a replica copy",
        () -> (double) snap().underReplicated());
    metrics.gaugeFamily("kvpool_build_info", "Release and protocol of this master", () -> List.of(
        new MetricsRegistry.Sample(Map.of("release", VersionInfo.CURRENT.release(),
            "protocol", VersionInfo.CURRENT.protocol()), 1)));
    metrics.gaugeFamily("kvpool_node_capacity_bytes", "Memory offered per storage node", () -> perNode(true));
    metrics.gaugeFamily("kvpool_node_used_bytes", "Memory allocated per storage node", () -> perNode(false));
    metrics.gaugeFamily("kvpool_node_up", "1 when the node is ALIVE or DRAINING", () -> {
      List<MetricsRegistry.Sample> out = new ArrayList<>();
      for (PoolSnapshot.Node n : snap().nodes()) {
        out.add(new MetricsRegistry.Sample(Map.of("node", n.id(), "state", n.state()), n.state().equals("DEAD") ? 0 : 1));
      }
      return out;
    });
  }

  private PoolSnapshot snap() {
    PoolSnapshot s = lastSnapshot.get();
    return s != null ? s : metadata.snapshot();
  }

  private List<MetricsRegistry.Sample> perNode(boolean capacity) {
    List<MetricsRegistry.Sample> out = new ArrayList<>();
    for (PoolSnapshot.Node n : snap().nodes()) {
      out.add(new MetricsRegistry.Sample(Map.of("node", n.id()), capacity ? n.capacityBytes() : n.usedBytes()));
    }
    return out;
  }

  /** The /status document (field names are part of the admin API used by the operator and CLI). */
  public Map<String, Object> status() {
    PoolSnapshot s = metadata.snapshot();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("poolId", config.poolId());
    doc.put("role", "LEADER");
    doc.put("viewNumber", PoolMetadata.VIEW_NUMBER);
    doc.put("releaseVersion", VersionInfo.CURRENT.release());
    doc.put("protocolVersion", VersionInfo.CURRENT.protocol());
    List<Map<String, Object>> nodes = new ArrayList<>();
    for (PoolSnapshot.Node n : s.nodes()) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("id", n.id());
      node.put("endpoint", n.endpoint());
      node.put("state", n.state());
      node.put("capacityBytes", n.capacityBytes());
      node.put("usedBytes", n.usedBytes());
      node.put("version", n.version());
      node.put("protocolVersion", n.protocol());
      node.put("lastHeartbeatMillisAgo", n.lastHeartbeatMillisAgo());
      nodes.add(node);
    }
    doc.put("nodes", nodes);
    doc.put("capacityBytes", s.capacityBytes());
    doc.put("usedBytes", s.usedBytes());
    doc.put("objectCount", s.objectCount());
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("puts", counters.puts());
    c.put("gets", counters.gets());
    c.put("getHits", counters.getHits());
    c.put("getMisses", counters.getMisses());
    c.put("evictions", counters.evictions());
    c.put("objectsLost", counters.objectsLost());
    c.put("repairs", counters.repairs());
    c.put("versionMismatches", counters.versionMismatches().get());
    c.put("pendingObjects", s.pendingObjects());
    c.put("activeLeases", s.activeLeases());
    c.put("pinnedObjects", s.pinnedObjects());
    c.put("underReplicated", s.underReplicated());
    doc.put("counters", c);
    return doc;
  }

  private Response nodeAction(String method, String path) {
    String[] parts = path.split("/");
    if (parts.length != 4 || !parts[3].equals("drain")) {
      return Response.text(404, "expected POST /nodes/{id}/drain\n");
    }
    if (!method.equals("POST")) {
      return Response.text(405, "use POST /nodes/{id}/drain\n");
    }
    return metadata.drain(parts[2])
        ? Response.json(200, Map.of("node", parts[2], "state", "DRAINING"))
        : Response.text(404, "no live storage node '" + parts[2] + "'\n");
  }

  @Override
  public void close() {
    serving = false;
    repairer.close();
    rpc.close();
    admin.close();
  }
}
