package io.kvpool.master;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterRole;
import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.ResidentKeys;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.events.KvEventPublisher;
import io.kvpool.process.AdminHttpServer;
import io.kvpool.process.AdminHttpServer.Request;
import io.kvpool.process.AdminHttpServer.Response;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.ServerState;
import io.kvpool.rpc.RpcServer;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running master: RPC server, admin HTTP, leadership, periodic work. Only while it leads does it
 * hold the pool's metadata (a fresh {@link PoolMetadata} under a new view each time it starts
 * leading); otherwise it answers NOT_LEADER naming the leader. Also used in-process by tests.
 */
public final class Master implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Master.class);

  private final MasterSettings settings;
  private final PrometheusRegistry metrics = new PrometheusRegistry();
  private final MasterCounters counters = new MasterCounters(metrics);
  private final RpcServer rpc;
  private final AdminHttpServer admin;
  private final Leadership leadership;
  private final ReplicaRepairer repairer;
  private final ReleasePusher releasePusher;

  /** Null unless the master publishes KV events. */
  private final KvEventPublisher events;

  /**
   * Placement's choices and eviction's samples: a fast generator, not a secure one. Nothing they
   * pick is a secret, and a SecureRandom (NativePRNG, a lock and a read of /dev/urandom per call)
   * took 4 % of a full pool's master CPU, where eviction draws 16 numbers per victim.
   */
  private final Random random = new Random();

  private volatile PoolMetadata leading; // null while standing by
  private volatile MasterConfig config; // the settings' config with eviction settings changed live
  private volatile LeaderIdentity knownLeader;
  private volatile boolean started;
  private long lastView;

  public Master(MasterSettings settings) throws IOException {
    this.settings = settings;
    this.config = settings.config();
    RpcServer.Identity identity =
        new RpcServer.Identity(
            VersionInfo.CURRENT,
            Role.MASTER,
            () -> settings.config().poolId(),
            "master",
            () -> leading == null ? 0 : leading.view(),
            this::serverState,
            () -> knownLeader == null ? "" : knownLeader.rpcEndpoint());
    this.rpc =
        new RpcServer(
            "master",
            settings.host(),
            settings.port(),
            identity,
            new MasterRequestHandler(this),
            settings.limits(),
            settings.secrets(),
            metrics);
    try {
      this.admin = new AdminHttpServer(settings.host(), settings.adminPort());
    } catch (IOException e) {
      rpc.close();
      throw e;
    }
    try {
      this.events = settings.events().map(e -> new KvEventPublisher(e, metrics)).orElse(null);
    } catch (RuntimeException e) {
      rpc.close();
      admin.close();
      throw e;
    }
    LeaderIdentity self =
        new LeaderIdentity(
            settings.election().map(LeaseElection::podName).orElse(""),
            advertised(rpc.endpoint()),
            advertised(admin.endpoint()));
    this.leadership =
        settings
            .election()
            .<Leadership>map(e -> new LeaseLeadership(e, self))
            .orElseGet(SoleLeadership::new);
    this.knownLeader = null;
    // the periodic work (node expiry, eviction, repairs) runs only while the leadership is certain
    this.repairer =
        new ReplicaRepairer(
            () -> leadership.certain() ? leading : null,
            settings.config().poolId(),
            settings.secrets());
    this.releasePusher =
        new ReleasePusher(
            settings.config().poolId(),
            settings.secrets(),
            counters.releasePushes,
            settings.config().releasePush());
    registerGauges();
    admin
        .route("/health", r -> Response.text(200, "ok\n"))
        .route("/ready", this::ready)
        .route("/metrics", r -> AdminHttpServer.metrics(metrics))
        .route("/status", r -> new Response(200, "application/json", AdminJson.write(status())))
        .route("/scan", r -> scanResponse())
        .route("/residents", r -> residentsResponse())
        .route("/step-down", this::stepDown)
        .route("/nodes/", this::nodeAction);
  }

  /** {@code host:port} with the advertised host (never a wildcard); IPv6 in brackets. */
  private String advertised(HostPort bound) {
    return new HostPort(settings.advertiseHost(), bound.port()).toString();
  }

  public Master start() {
    rpc.start();
    admin.start();
    repairer.start(
        Duration.ofMillis(
            Math.max(50, Math.min(500, settings.config().nodeTtl().toMillis() / 10))));
    started = true;
    leadership.start(
        new Leadership.Listener() {
          @Override
          public void startedLeading(Set<String> previousNodes) {
            lead(previousNodes);
          }

          @Override
          public Set<String> servedNodes() {
            PoolMetadata m = leading;
            return m == null ? null : m.servedNodes();
          }

          @Override
          public void stoppedLeading() {
            leading = null;
            if (events != null) {
              events.standBy();
            }
            knownLeader =
                null; // until the elector names the next one: never point peers at this standby
          }

          @Override
          public void newLeader(String leaderIdentity) {
            knownLeader = LeaderIdentity.decode(leaderIdentity);
          }
        });
    return this;
  }

  /**
   * Starts serving under a new view: later than every view this process served, and than any
   * earlier leader's. Recovery waits for {@code previousNodes}, the storage nodes the previous
   * leader recorded.
   */
  private synchronized void lead(Set<String> previousNodes) {
    long view = Math.max(System.currentTimeMillis(), lastView + 1);
    lastView = view;
    PoolMetadata m =
        new PoolMetadata(
            config,
            System::currentTimeMillis,
            new ReplicaPlacement(random, config.placementRamp()),
            counters,
            random,
            view,
            previousNodes);
    if (events != null) {
      m.listen(
          events.listenerFor(view)); // before it serves: every change of residency is announced
      events.lead(m);
    }
    leading = m;
    knownLeader =
        new LeaderIdentity(
            settings.election().map(LeaseElection::podName).orElse(""),
            advertised(rpcEndpointUnchecked()),
            advertised(admin.endpoint()));
    LOG.info(
        "event=serving_as_leader pool={} view={} rpc={} awaiting_nodes={}",
        settings.config().poolId(),
        view,
        knownLeader.rpcEndpoint(),
        previousNodes);
  }

  private HostPort rpcEndpointUnchecked() {
    try {
      return rpc.endpoint();
    } catch (IOException e) {
      throw new IllegalStateException("RPC server has no local address", e);
    }
  }

  /**
   * Takes new eviction settings (from the pool's ConfigMap, re-read while running): the current
   * leadership uses them at once and every later one starts with them.
   */
  public synchronized void updateEviction(double highWatermark, double evictRatio) {
    MasterConfig next = config.withEviction(highWatermark, evictRatio);
    if (next.equals(config)) {
      return;
    }
    config = next;
    PoolMetadata m = leading;
    if (m != null) {
      m.updateEviction(highWatermark, evictRatio);
    }
    LOG.info(
        "event=eviction_settings_changed pool={} high_watermark={} evict_ratio={}",
        config.poolId(),
        highWatermark,
        evictRatio);
  }

  /**
   * The metadata this master serves as leader; throws NOT_LEADER (naming the leader) while standing
   * by.
   */
  PoolMetadata metadataOrRefuse() {
    PoolMetadata m = leading;
    if (m != null && !leadership.certain()) {
      throw new RefusedException(
          ErrorCode.NOT_LEADER,
          "this master's leadership is unconfirmed: its last Lease renewal"
              + " is older than the renew deadline (it was paused or cut off), so another master may lead; ask the others");
    }
    if (m == null) {
      LeaderIdentity l = knownLeader;
      throw new RefusedException(
          ErrorCode.NOT_LEADER,
          "this master is a standby; the leader is "
              + (l == null ? "not known yet" : l.rpcEndpoint()));
    }
    return m;
  }

  /** SERVING or RECOVERING while leading, else STANDBY (what handshakes and /status say). */
  private ServerState serverState() {
    PoolMetadata m = leading;
    return m == null ? ServerState.STANDBY : m.state();
  }

  /** The leader's metadata, or null while standing by (tests and diagnostics reach into it). */
  public PoolMetadata metadata() {
    return leading;
  }

  public HostPort rpcEndpoint() throws IOException {
    return rpc.endpoint();
  }

  public HostPort adminEndpoint() {
    return admin.endpoint();
  }

  public boolean isLeader() {
    return leading != null;
  }

  /** The KV event publisher, when this master publishes events (tests read its ports). */
  public java.util.Optional<KvEventPublisher> events() {
    return java.util.Optional.ofNullable(events);
  }

  public MasterCounters counters() {
    return counters;
  }

  ReleasePusher releasePusher() {
    return releasePusher;
  }

  private Response ready(Request r) {
    if (!started) {
      return Response.text(503, "starting\n");
    }
    return leading != null
        ? Response.text(200, "leader\n")
        : Response.text(
            200,
            "standby"
                + (knownLeader == null ? "" : "; leader " + knownLeader.rpcEndpoint())
                + "\n");
  }

  private void registerGauges() {
    gauge("kvpool_capacity_bytes", "Memory offered by live storage nodes", s -> s.capacityBytes());
    gauge("kvpool_used_bytes", "Memory allocated to replicas", s -> s.usedBytes());
    gauge("kvpool_objects", "Objects in the table (pending included)", s -> s.objectCount());
    gauge("kvpool_objects_pending", "Puts started and not yet ended", s -> s.pendingObjects());
    gauge(
        "kvpool_objects_under_replicated",
        "Objects waiting for a replica copy",
        s -> s.underReplicated());
    gauge(
        "kvpool_tombstones",
        "Deleted objects remembered against returning replicas",
        s -> s.tombstones());
    gauge("kvpool_master_view", "Leadership view this master serves (0: standby)", s -> s.view());
    GaugeWithCallback.builder()
        .name("kvpool_master_leader")
        .help("1 while this master leads the pool")
        .callback(cb -> cb.call(leading == null ? 0 : 1))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_build_info")
        .help("Release and protocol of this master")
        .labelNames("release", "protocol")
        .callback(cb -> cb.call(1, VersionInfo.CURRENT.release(), VersionInfo.CURRENT.protocol()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_node_capacity_bytes")
        .help("Memory offered per storage node")
        .unit(Unit.BYTES)
        .labelNames("node")
        .callback(
            cb ->
                snapshot()
                    .ifPresent(s -> s.nodes().forEach(n -> cb.call(n.capacityBytes(), n.id()))))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_node_used_bytes")
        .help("Memory allocated per storage node")
        .unit(Unit.BYTES)
        .labelNames("node")
        .callback(
            cb -> snapshot().ifPresent(s -> s.nodes().forEach(n -> cb.call(n.usedBytes(), n.id()))))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_node_up")
        .help("1 when the node is ALIVE or DRAINING")
        .labelNames("node", "state")
        .callback(
            cb ->
                snapshot()
                    .ifPresent(
                        s ->
                            s.nodes()
                                .forEach(
                                    n ->
                                        cb.call(
                                            n.state().serves() ? 1 : 0, n.id(), n.state().name()))))
        .register(metrics);
    nodeGauge(
        "kvpool_node_silent",
        "1 while a serving (ALIVE or DRAINING) storage node has not been heard from for 3 s"
            + " (or half the node TTL): frozen, overloaded or cut off; nothing new is placed on it",
        n -> n.state().serves(),
        n -> n.silent() ? 1 : 0);
    nodeGauge(
        "kvpool_node_disk_capacity_bytes",
        "Cap of each storage node's disk tier (nodes with one)",
        n -> n.disk() != null,
        n -> n.disk().capacityBytes());
    nodeGauge(
        "kvpool_node_disk_used_bytes",
        "Bytes each storage node's disk tier files occupy, as its heartbeats report",
        n -> n.disk() != null,
        n -> n.disk().usedBytes());
    nodeGauge(
        "kvpool_node_disk_degraded",
        "1 while a storage node's disk tier is degraded (its writes fail; /status says why)",
        n -> n.disk() != null,
        n -> n.disk().healthy() ? 0 : 1);
    counters.cacheSignals.registerGauges(
        metrics, System::currentTimeMillis, () -> snapshot().map(CacheTiers::of).orElse(List.of()));
  }

  /** A gauge per storage node of those {@code which} selects, labelled with its id. */
  private void nodeGauge(
      String name,
      String help,
      java.util.function.Predicate<PoolSnapshot.Node> which,
      java.util.function.ToLongFunction<PoolSnapshot.Node> figure) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("node")
        .callback(
            cb ->
                snapshot()
                    .ifPresent(
                        s ->
                            s.nodes().stream()
                                .filter(which)
                                .forEach(n -> cb.call(figure.applyAsLong(n), n.id()))))
        .register(metrics);
  }

  private void gauge(
      String name, String help, java.util.function.ToLongFunction<PoolSnapshot> figure) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> snapshot().ifPresent(s -> cb.call(figure.applyAsLong(s))))
        .register(metrics);
  }

  private Optional<PoolSnapshot> snapshot() {
    PoolMetadata m = leading;
    return m == null ? Optional.empty() : Optional.of(m.snapshot());
  }

  /**
   * The /scan document: the leader's object table counted by a full walk, to check the gauges of
   * /status against (O(objects): for diagnostics and soak tests, not for a scraper). 503 on a
   * standby.
   */
  private Response scanResponse() {
    PoolMetadata m = leading;
    return m == null
        ? Response.text(503, "not the leader: only the leading master holds the object table\n")
        : new Response(200, "application/json", AdminJson.write(m.scan()));
  }

  /**
   * The /residents document: the readable objects as KV events name them (O(objects)). 503 on a
   * standby.
   */
  private Response residentsResponse() {
    PoolMetadata m = leading;
    if (m == null) {
      return Response.text(503, "not the leader: only the leading master holds the object table\n");
    }
    java.util.List<ResidentKeys.Resident> out = new java.util.ArrayList<>();
    for (ResidentObject o : m.residents()) {
      out.add(
          new ResidentKeys.Resident(
              o.key(),
              o.generation(),
              o.eventHashes(),
              o.onDisk() ? CacheTiers.DISK : CacheTiers.MEMORY));
    }
    return new Response(
        200,
        "application/json",
        AdminJson.write(new ResidentKeys(AdminJson.API_VERSION, m.view(), out)));
  }

  /** The /status document. */
  public MasterStatus status() {
    PoolMetadata m = leading;
    LeaderIdentity l = knownLeader;
    MasterStatus.Leader leader =
        l == null ? null : new MasterStatus.Leader(l.pod(), l.rpcEndpoint(), l.adminEndpoint());
    String release = VersionInfo.CURRENT.release();
    String protocol = VersionInfo.CURRENT.protocol();
    long mismatches = rpc.versionMismatches();
    if (m == null) {
      return new MasterStatus(
          AdminJson.API_VERSION,
          settings.config().poolId(),
          MasterRole.STANDBY.name(),
          ServerState.STANDBY.name(),
          0,
          leader,
          release,
          protocol,
          new MasterStatus.Recovery(false, 0, List.of()),
          List.of(),
          0,
          0,
          0,
          new MasterStatus.Counters(
              0,
              0,
              0,
              0,
              0,
              0,
              0,
              mismatches,
              0,
              0,
              0,
              0,
              MasterCounters.value(counters.repairedBytes)),
          null,
          eventsStatus());
    }
    PoolSnapshot s = m.snapshot();
    List<MasterStatus.NodeStatus> nodes = new ArrayList<>();
    for (PoolSnapshot.Node n : s.nodes()) {
      nodes.add(
          new MasterStatus.NodeStatus(
              n.id(),
              n.endpoint(),
              n.state().name(),
              n.capacityBytes(),
              n.usedBytes(),
              n.replicas(),
              n.version(),
              n.protocol(),
              n.lastHeartbeatMillisAgo(),
              n.transport(),
              n.devices(),
              n.disk() == null
                  ? null
                  : new MasterStatus.NodeDisk(
                      n.disk().capacityBytes(),
                      n.disk().usedBytes(),
                      n.disk().healthy(),
                      n.disk().degraded()),
              n.silent()));
    }
    MasterStatus.Counters c =
        new MasterStatus.Counters(
            MasterCounters.value(counters.puts),
            MasterCounters.value(counters.gets),
            MasterCounters.value(counters.getHits),
            MasterCounters.value(counters.getMisses),
            MasterCounters.value(counters.evictions),
            MasterCounters.value(counters.objectsLost),
            MasterCounters.value(counters.repairs),
            mismatches,
            s.pendingObjects(),
            s.pinnedObjects(),
            s.underReplicated(),
            s.tombstones(),
            MasterCounters.value(counters.repairedBytes));
    return new MasterStatus(
        AdminJson.API_VERSION,
        settings.config().poolId(),
        MasterRole.LEADER.name(),
        s.state().name(),
        s.view(),
        leader,
        release,
        protocol,
        new MasterStatus.Recovery(
            s.state() == ServerState.RECOVERING, s.objectsRecovered(), s.awaitedNodes()),
        nodes,
        s.capacityBytes(),
        s.usedBytes(),
        s.objectCount(),
        c,
        counters.cacheSignals.rates(System.currentTimeMillis(), CacheTiers.of(s)),
        eventsStatus());
  }

  private MasterStatus.Events eventsStatus() {
    return events == null ? null : events.status();
  }

  /** Mutating admin endpoints need the admin token when one is configured. */
  private Response refuseUnauthorised(Request r) {
    String token = settings.secrets().adminToken();
    if (!token.isEmpty()
        && !MessageDigest.isEqual(
            token.getBytes(StandardCharsets.UTF_8),
            r.bearerToken().getBytes(StandardCharsets.UTF_8))) {
      return Response.text(
          401,
          "this endpoint changes the pool: send the admin token as 'Authorization: Bearer ...'\n");
    }
    if (!r.method().equals("POST")) {
      return Response.text(405, "use POST " + r.path() + "\n");
    }
    return null;
  }

  private Response stepDown(Request r) {
    Response refused = refuseUnauthorised(r);
    if (refused != null) {
      return refused;
    }
    if (leading == null) {
      return Response.text(409, "this master is not the leader\n");
    }
    if (settings.election().isEmpty()) {
      return Response.text(409, "a master without election has nobody to hand over to\n");
    }
    leading = null; // stop serving at once; the Lease is released next
    leadership.stepDown();
    return Response.text(200, "stepped down\n");
  }

  private Response nodeAction(Request r) {
    String[] parts = r.path().split("/");
    if (parts.length != 4 || !parts[3].equals("drain")) {
      return Response.text(404, "expected POST /nodes/{id}/drain\n");
    }
    Response refused = refuseUnauthorised(r);
    if (refused != null) {
      return refused;
    }
    PoolMetadata m = leading;
    if (m == null) {
      return Response.text(409, "this master is not the leader; ask the leader\n");
    }
    try {
      m.drain(parts[2]);
    } catch (RefusedException e) {
      return Response.text(e.code() == ErrorCode.UNKNOWN_NODE ? 404 : 409, e.getMessage() + "\n");
    }
    return Response.json(
        200, java.util.Map.of("node", parts[2], "state", NodeState.DRAINING.name()));
  }

  @Override
  public void close() {
    leading = null;
    leadership.close();
    repairer.close();
    releasePusher.close();
    rpc.close();
    admin.close();
    if (events != null) {
      events.close();
    }
  }
}
