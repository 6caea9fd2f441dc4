package io.kvpool.storage;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.StorageStatus;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.nativemem.DeviceBackend;
import io.kvpool.nativemem.NativeSegment;
import io.kvpool.nativemem.SegmentOptions;
import io.kvpool.process.AdminHttpServer;
import io.kvpool.process.AdminHttpServer.Response;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.protocol.ServerState;
import io.kvpool.protocol.Slice;
import io.kvpool.rpc.RpcServer;
import io.kvpool.storage.disk.DiskTier;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running storage node: native segments, the device backend of its transport, RPC server, master
 * link, admin HTTP. With a memory folder its segments are node-local memory files, and a clean stop
 * leaves them with an inventory for a warm restart ({@link MemoryFiles}). Also used in-process by
 * tests.
 */
public final class StorageNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StorageNode.class);
  private static final Duration QUIESCE_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Native memory that reads from the disk tier may stage values in at once (at least one largest
   * value).
   */
  private static final long DISK_STAGING_BYTES = 1L << 30;

  private final StorageConfig config;
  private final List<NativeSegment> segments = new ArrayList<>();
  private final ObjectInventory inventory;
  private final PrometheusRegistry metrics = new PrometheusRegistry();
  private final DeviceState device;
  private final RpcServer rpc;
  private final AdminHttpServer admin;
  private final MasterLink link;
  private final StorageRequestHandler handler;
  private final String endpoint;
  private final MemoryFiles memoryFiles; // null: anonymous memory
  private final StorageStatus.WarmStart warmStart;
  private final DiskSpill disk; // null: no disk tier
  private SegmentFiles files; // null: replies are copied from the segments

  public StorageNode(StorageConfig config) throws IOException {
    this.config = config;
    this.inventory =
        new ObjectInventory(config.tombstoneTtl().toMillis(), 1_000_000, this::replacePages);
    this.device = DeviceState.open(config.transport());
    DiskSpill openedDisk = null;
    try {
      long perSegment = config.memoryBytes() / config.segments();
      SegmentOptions options = SegmentOptions.defaults().hugePages(config.hugePages());
      long t0 = System.nanoTime();
      if (config.memoryDir() == null) {
        memoryFiles = null;
        warmStart = StorageStatus.WarmStart.anonymous();
        for (int i = 0; i < config.segments(); i++) {
          segments.add(NativeSegment.allocate(perSegment, options));
        }
      } else {
        memoryFiles = MemoryFiles.of(config.memoryDir(), config.nodeId());
        MemoryFiles.Opened opened =
            memoryFiles.open(config.nodeId(), config.segments(), perSegment, options);
        segments.addAll(opened.segments());
        if (opened.inventory() != null) {
          warmStart = MemoryFiles.adopt(opened.inventory(), segments, inventory);
        } else {
          warmStart =
              new StorageStatus.WarmStart(
                  true, false, 0, 0, 0, "started empty: " + opened.coldReason());
          LOG.info(
              "event=cold_start node={} folder={} reason=\"{}\"",
              config.nodeId(),
              memoryFiles.folder(),
              opened.coldReason());
        }
      }
      if (!warmStart.taken() && config.segmentUse().prefault()) {
        segments.forEach(StorageNode::prefault); // never over adopted replicas: it writes
      }
      if (config.segmentUse().readServing() == ReadServing.SENDFILE) {
        // with a disk tier a displaced replica is read for its spill after it left the
        // inventory, when its pages would already have been replaced: replies are copied there
        files = config.disk() == null ? SegmentFiles.open(segments) : null;
        if (files == null) {
          LOG.info(
              "event=reads_copied node={} reason=\"sendfile needs segments in memory files on"
                  + " tmpfs (--memory-dir) and no disk tier\"",
              config.nodeId());
        }
      }
      LOG.info(
          "event=segments_ready node={} bytes={} segments={} memory_files={} warm={} ready_ms={}",
          config.nodeId(),
          config.memoryBytes(),
          config.segments(),
          memoryFiles != null,
          warmStart.taken(),
          (System.nanoTime() - t0) / 1_000_000);
      List<SegmentInfo> infos = new ArrayList<>();
      for (int i = 0; i < segments.size(); i++) {
        infos.add(new SegmentInfo(i, segments.get(i).size()));
      }
      // the pool id is learned from the master during registration; the link exists only after the
      // server bound
      MasterLink[] linkRef = new MasterLink[1];
      RpcServer.Identity identity =
          new RpcServer.Identity(
              VersionInfo.CURRENT,
              Role.STORAGE,
              () -> linkRef[0] == null ? config.poolId() : linkRef[0].poolId(),
              config.nodeId(),
              () -> linkRef[0] == null ? 0 : linkRef[0].highestView(),
              () -> ServerState.SERVING,
              () -> "");
      StorageRequestHandler[] handlerRef = new StorageRequestHandler[1];
      this.rpc =
          new RpcServer(
              "storage",
              config.host(),
              config.port(),
              identity,
              (session, request) -> handlerRef[0].handle(session, request),
              config.limits(),
              config.secrets(),
              metrics);
      this.endpoint = new HostPort(config.advertiseHost(), rpc.endpoint().port()).toString();
      this.disk = openDisk(config, segments, inventory);
      openedDisk = disk;
      this.link =
          new MasterLink(
              config.masters(),
              config.poolId(),
              config.nodeId(),
              endpoint,
              infos,
              inventory,
              config.heartbeat(),
              config.secrets(),
              config.transport().protocol(),
              device.devices(),
              disk);
      linkRef[0] = link;
      this.handler =
          new StorageRequestHandler(
              config.nodeId(), segments, files, inventory, link, metrics, disk);
      handlerRef[0] = handler;
      this.admin = new AdminHttpServer(config.host(), config.adminPort());
    } catch (IOException | RuntimeException e) {
      if (files != null) {
        files.close();
      }
      segments.forEach(NativeSegment::close);
      device.close();
      if (openedDisk != null) {
        openedDisk.close();
        openedDisk.tier().close();
      }
      throw e;
    }
    registerGauges();
    admin
        .route("/health", r -> Response.text(200, "ok\n"))
        .route("/ready", r -> ready())
        .route("/metrics", r -> AdminHttpServer.metrics(metrics))
        .route("/status", r -> new Response(200, "application/json", AdminJson.write(status())));
  }

  /**
   * The node's disk tier, rescanned (its faults leave it degraded, never stop the node); null
   * without one.
   */
  private static DiskSpill openDisk(
      StorageConfig config, List<NativeSegment> segments, ObjectInventory inventory) {
    if (config.disk() == null) {
      return null;
    }
    DiskSpill[] spill = new DiskSpill[1];
    DiskTier tier = DiskTier.open(config.disk(), lost -> spill[0].lost(lost), DISK_STAGING_BYTES);
    spill[0] = new DiskSpill(tier, segments, inventory);
    return spill[0];
  }

  /** Ready once the device backend opened and the node is registered with the leader. */
  private Response ready() {
    if (!device.ready()) {
      return Response.text(503, device.message() + "\n");
    }
    return link.isRegistered()
        ? Response.text(200, "ready\n")
        : Response.text(503, "not registered with a master of " + config.masters() + "\n");
  }

  /**
   * Gives a gone replica's slice new pages (its old ones may still be queued on a reader's
   * connection by sendfile); a failure leaves them in place, where the reader's CRC32C check turns
   * a later overwrite into a miss.
   */
  private void replacePages(Slice slice) {
    try {
      segments.get(slice.segmentId()).replacePages(slice.offset(), slice.length());
    } catch (RuntimeException e) {
      LOG.warn(
          "event=pages_not_replaced node={} segment={} offset={} length={} reason=\"{}\"",
          config.nodeId(),
          slice.segmentId(),
          slice.offset(),
          slice.length(),
          e.getMessage());
    }
  }

  /**
   * Touches every page once so that puts do not pay first-touch page faults (measured: they cut
   * fresh-memory put throughput several times) and the node's memory is really there before it
   * offers it to the pool.
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
    if (disk != null) {
      DiskTier tier = disk.tier();
      GaugeWithCallback.builder()
          .name("kvpool_storage_disk_capacity_bytes")
          .help("The disk tier's cap")
          .callback(cb -> cb.call(tier.settings().capBytes()))
          .register(metrics);
      GaugeWithCallback.builder()
          .name("kvpool_storage_disk_used_bytes")
          .help("Bytes of the disk tier's files")
          .callback(cb -> cb.call(tier.usedBytes()))
          .register(metrics);
      GaugeWithCallback.builder()
          .name("kvpool_storage_disk_objects")
          .help("Records the disk tier holds")
          .callback(cb -> cb.call(tier.records()))
          .register(metrics);
      GaugeWithCallback.builder()
          .name("kvpool_storage_disk_degraded")
          .help(
              "1 while the disk tier cannot write (I/O error, full, folder gone); /status says why")
          .callback(cb -> cb.call(tier.degraded() ? 1 : 0))
          .register(metrics);
    }
    GaugeWithCallback.builder()
        .name("kvpool_storage_capacity_bytes")
        .help("Native memory held by this node")
        .callback(cb -> cb.call(segments.stream().mapToLong(NativeSegment::size).sum()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_storage_objects")
        .help("Complete replicas in the node's inventory")
        .callback(cb -> cb.call(inventory.completeCount()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_storage_tombstones")
        .help("Deleted objects the node remembers")
        .callback(cb -> cb.call(inventory.tombstoneCount()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_storage_registered")
        .help("1 while registered with the leader")
        .callback(cb -> cb.call(link.isRegistered() ? 1 : 0))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_storage_device_ready")
        .help("1 when the device backend opened")
        .labelNames("backend")
        .callback(cb -> cb.call(device.ready() ? 1 : 0, device.backend()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("kvpool_build_info")
        .help("Release and protocol of this node")
        .labelNames("release", "protocol")
        .callback(cb -> cb.call(1, VersionInfo.CURRENT.release(), VersionInfo.CURRENT.protocol()))
        .register(metrics);
  }

  public StorageStatus status() {
    return new StorageStatus(
        AdminJson.API_VERSION,
        link.poolId(),
        config.nodeId(),
        endpoint,
        link.isRegistered(),
        link.view(),
        VersionInfo.CURRENT.release(),
        VersionInfo.CURRENT.protocol(),
        segments.stream().mapToLong(NativeSegment::size).sum(),
        inventory.completeCount(),
        inventory.tombstoneCount(),
        new StorageStatus.Transport(
            config.transport().protocol(),
            device.backend(),
            device.devices(),
            device.ready(),
            device.message()),
        warmStart,
        disk == null ? null : diskStatus(disk.tier().status()));
  }

  private static StorageStatus.Disk diskStatus(DiskTier.Status s) {
    return new StorageStatus.Disk(
        s.dir(),
        s.capBytes(),
        s.usedBytes(),
        s.files(),
        s.records(),
        s.degraded() == null,
        s.degraded() == null ? "" : s.degraded(),
        s.spills(),
        s.spillFailures(),
        s.reads(),
        s.misses(),
        s.reclaimedRecords(),
        s.reclaimedFiles(),
        s.droppedAtStart());
  }

  /**
   * Starts serving and registers with the leader; returns once registered (or throws after {@code
   * timeout}).
   */
  public StorageNode start(Duration timeout) throws IOException, InterruptedException {
    rpc.start();
    admin.start();
    if (!device.ready()) {
      // serve /health and a failing /ready that says why; never register a node that cannot do its
      // job
      LOG.error(
          "event=device_backend_failed node={} backend={} reason=\"{}\"",
          config.nodeId(),
          device.backend(),
          device.message());
      return this;
    }
    link.start();
    boolean registered = link.awaitRegistered(timeout);
    if (link.poolRefusal() != null) {
      throw new IOException(
          "storage node "
              + config.nodeId()
              + " was started for pool '"
              + config.poolId()
              + "' but the master refused it: "
              + link.poolRefusal().getMessage());
    }
    if (!registered) {
      throw new IOException(
          "storage node "
              + config.nodeId()
              + " could not register with a master of "
              + config.masters()
              + " within "
              + timeout.toSeconds()
              + " s; is the master running and of a compatible"
              + " version?");
    }
    LOG.info(
        "event=storage_started node={} rpc={} admin={} capacity={} segments={} huge_pages={} backend={}",
        config.nodeId(),
        endpoint,
        admin.endpoint(),
        segments.stream().mapToLong(NativeSegment::size).sum(),
        segments.size(),
        segments.get(0).hugePages(),
        device.backend());
    return this;
  }

  /** The endpoint this node advertises to the master and clients. */
  public String endpoint() {
    return endpoint;
  }

  public HostPort rpcEndpoint() throws IOException {
    return rpc.endpoint();
  }

  public HostPort adminEndpoint() {
    return admin.endpoint();
  }

  /** This node's side of the extents clients write into (for tests in this package). */
  ExtentWrites extentWrites() {
    return link.extents();
  }

  public String nodeId() {
    return config.nodeId();
  }

  public boolean deviceReady() {
    return device.ready();
  }

  /**
   * Stops serving; unmaps the segments only once no request or copy uses them (else leaves them to
   * the exit).
   */
  @Override
  public void close() {
    link.close();
    boolean quiet;
    try {
      quiet = handler.quiesce(QUIESCE_TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      quiet = false;
    }
    rpc.close();
    admin.close();
    if (quiet && files != null) {
      files.close();
    }
    if (quiet) {
      keepForNextProcess();
      segments.forEach(NativeSegment::close);
    } else {
      LOG.warn(
          "event=segments_left_mapped node={} reason=\"requests still running after {} s\"",
          config.nodeId(),
          QUIESCE_TIMEOUT.toSeconds());
    }
    device.close();
    if (disk != null) {
      disk.close();
      disk.tier().close();
    }
  }

  /** The node's disk tier, or null without one (tests look at it). */
  public DiskTier diskTier() {
    return disk == null ? null : disk.tier();
  }

  /**
   * With memory files: writes the inventory next to them for the next process on this machine, or
   * removes them when the node holds nothing (drained, or scaled away). Runs once no request uses
   * the segments.
   */
  private void keepForNextProcess() {
    if (memoryFiles == null) {
      return;
    }
    ObjectInventory.Snapshot snapshot = inventory.snapshot();
    try {
      if (snapshot.objects().isEmpty()) {
        memoryFiles.discard();
        LOG.info(
            "event=memory_files_removed node={} folder={} reason=\"no replica to keep\"",
            config.nodeId(),
            memoryFiles.folder());
        return;
      }
      long t0 = System.nanoTime();
      memoryFiles.save(
          new InventoryFile.Contents(
              VersionInfo.CURRENT.release(),
              config.nodeId(),
              link.poolId(),
              System.currentTimeMillis(),
              segments.stream().map(NativeSegment::size).toList(),
              snapshot.objects(),
              inventory.savedTombstones()));
      LOG.info(
          "event=inventory_saved node={} folder={} objects={} tombstones={} ms={}",
          config.nodeId(),
          memoryFiles.folder(),
          snapshot.objects().size(),
          snapshot.tombstones().size(),
          (System.nanoTime() - t0) / 1_000_000);
    } catch (IOException | RuntimeException e) {
      // the next process then starts empty and the master copies the replicas back from the other
      // nodes
      LOG.error(
          "event=inventory_not_saved node={} folder={} error=\"{}\"",
          config.nodeId(),
          memoryFiles.folder(),
          e.getMessage());
    }
  }

  /** What the node took over from its previous process, if anything. */
  public StorageStatus.WarmStart warmStart() {
    return warmStart;
  }

  /**
   * The device backend of the node's transport, opened at start; a failure is kept to explain
   * readiness.
   */
  private record DeviceState(
      DeviceBackend backendHandle, String backend, List<String> devices, String message) {
    static DeviceState open(StorageConfig.Transport transport) {
      String name = transport.backend();
      try {
        DeviceBackend b = DeviceBackend.open(name);
        List<String> devices = new ArrayList<>();
        if (!transport.deviceIds().isEmpty()) {
          transport.deviceIds().forEach(id -> devices.add(name + ":" + id));
        } else {
          for (int i = 0; i < Math.max(1, transport.deviceCount()); i++) {
            devices.add(name + ":" + i);
          }
        }
        return new DeviceState(
            b, name, name.equals("host") ? List.of() : devices, "device backend " + name + " open");
      } catch (RuntimeException e) {
        String hint =
            name.equals("ascend")
                ? " (the Ascend runtime libascendcl.so must be loadable: mount /usr/local/Ascend/driver and the CANN"
                    + " toolkit's lib64, or set KVPOOL_ASCEND_LIB; the pod's TransferEngine lists the driver mounts)"
                : "";
        return new DeviceState(
            null,
            name,
            List.of(),
            "cannot open device backend " + name + ": " + e.getMessage() + hint);
      }
    }

    boolean ready() {
      return backendHandle != null;
    }

    void close() {
      if (backendHandle != null) {
        try {
          backendHandle.close();
        } catch (Exception e) {
          LOG.debug("event=device_close_failed error={}", e.toString());
        }
      }
    }
  }
}
