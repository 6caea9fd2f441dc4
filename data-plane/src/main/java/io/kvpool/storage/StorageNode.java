package io.kvpool.storage;

import io.kvpool.common.AdminHttpServer;
import io.kvpool.common.AdminHttpServer.Response;
import io.kvpool.common.HostPort;
import io.kvpool.common.MetricsRegistry;
import io.kvpool.common.VersionInfo;
import io.kvpool.nativemem.NativeSegment;
import io.kvpool.nativemem.SegmentOptions;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcServer;
import io.kvpool.protocol.SegmentInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running storage node: native segments, RPC server, master link, admin HTTP. Also used in-process by tests. */
public final class StorageNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StorageNode.class);
  private static final int MAX_CONNECTIONS = 512;

  private final StorageConfig config;
  private final List<NativeSegment> segments = new ArrayList<>();
  private final ObjectInventory inventory = new ObjectInventory();
  private final MetricsRegistry metrics = new MetricsRegistry();
  private final RpcServer rpc;
  private final AdminHttpServer admin;
  private final MasterLink link;

  public StorageNode(StorageConfig config) throws IOException {
    this.config = config;
    try {
      long perSegment = config.memoryBytes() / config.segments();
      SegmentOptions options = SegmentOptions.defaults().hugePages(config.hugePages());
      long t0 = System.nanoTime();
      for (int i = 0; i < config.segments(); i++) {
        NativeSegment segment = NativeSegment.allocate(perSegment, options);
        segments.add(segment);
        prefault(segment);
      }
      LOG.info("event=segments_ready node={} bytes={} segments={} prefault_ms={}", config.nodeId(),
          config.memoryBytes(), config.segments(), (System.nanoTime() - t0) / 1_000_000);
      List<SegmentInfo> infos = new ArrayList<>();
      for (int i = 0; i < segments.size(); i++) {
        infos.add(new SegmentInfo(i, segments.get(i).size()));
      }
      MetricsRegistry.Counter mismatches =
          metrics.counter("kvpool_version_mismatch_total", "Connections refused for protocol version skew");
      // the pool id is learned from the master during registration; the link exists only after the server bound
      MasterLink[] linkRef = new MasterLink[1];
      RpcServer.Identity identity = new RpcServer.Identity(VersionInfo.CURRENT, Role.STORAGE,
          () -> linkRef[0] == null ? "" : linkRef[0].poolId(), config.nodeId());
      this.rpc = new RpcServer("storage", config.host(), config.port(), identity,
          new StorageRequestHandler(config.nodeId(), segments, inventory, () -> linkRef[0].signer(),
              () -> linkRef[0].poolId(), metrics),
          MAX_CONNECTIONS, mismatches);
      this.link = new MasterLink(config.master(), config.poolId(), config.nodeId(), rpc.endpoint().toString(), infos,
          inventory, config.heartbeat());
      linkRef[0] = link;
      this.admin = new AdminHttpServer(config.host(), config.adminPort());
    } catch (IOException | RuntimeException e) {
      segments.forEach(NativeSegment::close);
      throw e;
    }
    registerGauges();
    admin.route("/health", (m, p) -> Response.text(200, "ok\n"))
        .route("/ready", (m, p) -> link.isRegistered() ? Response.text(200, "ready\n")
            : Response.text(503, "not registered with master " + config.master() + "\n"))
        .route("/metrics", (m, p) -> new Response(200, "text/plain; version=0.0.4; charset=utf-8", metrics.render()));
  }

  /**
   * Touches every page once so that puts do not pay first-touch page faults (measured: they cut fresh-memory put
   * throughput several times) and the node's memory is really there before it offers it to the pool.
   */
  private static void prefault(NativeSegment segment) {
    final int page = 4096;
    final long chunk = 1L << 30;
    for (long base = 0; base < segment.size(); base += chunk) {
      ByteBuffer view = segment.view(base, (int) Math.min(chunk, segment.size() - base));
      for (int i = 0; i < view.capacity(); i += page) {
        view.put(i, (byte) 0);
      }
    }
  }

  private void registerGauges() {
    metrics.gauge("kvpool_storage_capacity_bytes", "Native memory held by this node",
        () -> (double) segments.stream().mapToLong(NativeSegment::size).sum());
    metrics.gauge("kvpool_storage_objects", "Replicas in the node's inventory", () -> (double) inventory.size());
    metrics.gauge("kvpool_storage_registered", "1 once registered with the master", () -> link.isRegistered() ? 1.0 : 0.0);
    metrics.gaugeFamily("kvpool_build_info", "Release and protocol of this node", () -> List.of(
        new MetricsRegistry.Sample(Map.of("release", VersionInfo.CURRENT.release(),
            "protocol", VersionInfo.CURRENT.protocol()), 1)));
  }

  /** Starts serving and registers with the master; returns once registered (or throws after {@code timeout}). */
  public StorageNode start(Duration timeout) throws IOException, InterruptedException {
    rpc.start();
    admin.start();
    link.start();
    boolean registered = link.awaitRegistered(timeout);
    if (link.poolRefusal() != null) {
      throw new IOException("storage node " + config.nodeId() + " was started for pool '" + config.poolId()
          + "' but master " + config.master() + " refused it: " + link.poolRefusal().getMessage());
    }
    if (!registered) {
      throw new IOException("storage node " + config.nodeId() + " could not register with master " + config.master()
          + " within " + timeout.toSeconds() + " s; is the master running and of a compatible version?");
    }
    LOG.info("event=storage_started node={} rpc={} admin={} capacity={} segments={} huge_pages={}", config.nodeId(),
        rpc.endpoint(), admin.endpoint(), segments.stream().mapToLong(NativeSegment::size).sum(), segments.size(),
        segments.get(0).hugePages());
    return this;
  }

  public HostPort rpcEndpoint() throws IOException {
    return rpc.endpoint();
  }

  public HostPort adminEndpoint() {
    return admin.endpoint();
  }

  public String nodeId() {
    return config.nodeId();
  }

  @Override
  public void close() {
    link.close();
    rpc.close();
    admin.close();
    segments.forEach(NativeSegment::close);
  }
}
