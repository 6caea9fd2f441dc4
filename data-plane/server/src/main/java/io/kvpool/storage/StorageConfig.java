package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.nativemem.HugePageMode;
import io.kvpool.rpc.ServerLimits;
import io.kvpool.security.PoolSecrets;
import io.kvpool.storage.disk.DiskTier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Settings of one storage node process. An empty {@code poolId} means "the pool of whichever master
 * it registers with"; a given one makes the handshake refuse a master of another pool.
 *
 * @param masters every master of the pool (or one Service name): the node finds the leader among
 *     them
 * @param advertiseHost the host peers dial; never a wildcard
 * @param transport how bytes move and which device backend the node opens (from the pool's
 *     TransferEngine)
 * @param limits what one peer of its RPC server may take (deadlines, caps)
 * @param secrets the pool's keys: peers authenticate when there are any, and this node proves the
 *     cluster key
 * @param memoryDir node-local folder (tmpfs or hugetlbfs) of the segments' memory files, which
 *     outlive the process for a warm restart; null for anonymous memory
 * @param disk the node's disk tier (values that leave memory are kept there); null for none (the
 *     default)
 * @param segmentUse how the segments are readied and read from; null for the defaults
 */
public record StorageConfig(
    List<HostPort> masters,
    String nodeId,
    String host,
    String advertiseHost,
    int port,
    int adminPort,
    long memoryBytes,
    int segments,
    Duration heartbeat,
    HugePageMode hugePages,
    String poolId,
    Transport transport,
    Duration tombstoneTtl,
    ServerLimits limits,
    PoolSecrets secrets,
    Path memoryDir,
    DiskTier.Settings disk,
    SegmentUse segmentUse) {
  /**
   * The TransferEngine's settings as the node uses them.
   *
   * @param deviceIds the devices the device plugin allocated (from its visibility variable), empty
   *     when unknown
   */
  public record Transport(String protocol, int deviceCount, List<String> deviceIds) {
    public static final Transport TCP = new Transport("tcp", 0, List.of());

    public Transport {
      if (!List.of("tcp", "rdma", "ascend").contains(protocol)) {
        throw new IllegalArgumentException(
            "transport protocol must be tcp, rdma or ascend, got '" + protocol + "'");
      }
      deviceIds = List.copyOf(deviceIds);
    }

    public Transport(String protocol, int deviceCount) {
      this(protocol, deviceCount, List.of());
    }

    /**
     * The ids in a device plugin's visibility variable ({@code ASCEND_VISIBLE_DEVICES=0,3}): comma-
     * or space-separated, blanks dropped.
     */
    public static List<String> parseDeviceIds(String value) {
      if (value == null || value.isBlank()) {
        return List.of();
      }
      return Arrays.stream(value.split("[,\\s]+"))
          .map(String::strip)
          .filter(v -> !v.isEmpty())
          .toList();
    }

    /** The device backend the node opens: {@code ascend} for Ascend NPUs, else host memory. */
    public String backend() {
      return protocol.equals("ascend") ? "ascend" : "host";
    }
  }

  public StorageConfig(
      List<HostPort> masters,
      String nodeId,
      String host,
      String advertiseHost,
      int port,
      int adminPort,
      long memoryBytes,
      int segments,
      Duration heartbeat,
      HugePageMode hugePages,
      String poolId,
      Transport transport,
      Duration tombstoneTtl) {
    this(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        heartbeat,
        hugePages,
        poolId,
        transport,
        tombstoneTtl,
        ServerLimits.DEFAULTS,
        PoolSecrets.none(),
        null,
        null,
        null);
  }

  /** Anonymous memory (no memory folder). */
  public StorageConfig(
      List<HostPort> masters,
      String nodeId,
      String host,
      String advertiseHost,
      int port,
      int adminPort,
      long memoryBytes,
      int segments,
      Duration heartbeat,
      HugePageMode hugePages,
      String poolId,
      Transport transport,
      Duration tombstoneTtl,
      ServerLimits limits,
      PoolSecrets secrets) {
    this(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        heartbeat,
        hugePages,
        poolId,
        transport,
        tombstoneTtl,
        limits,
        secrets,
        null,
        null,
        null);
  }

  /**
   * How a node readies its segments and serves reads from them.
   *
   * @param prefault touch every page at start (unless adopting a warm restart's replicas), so that
   *     a fresh pool's first puts do not pay page faults
   * @param readServing how READ replies leave the segments
   */
  public record SegmentUse(boolean prefault, ReadServing readServing) {
    public static final SegmentUse DEFAULTS = new SegmentUse(true, ReadServing.DEFAULT);

    public SegmentUse {
      readServing = readServing == null ? ReadServing.DEFAULT : readServing;
    }
  }

  public StorageConfig {
    segmentUse = segmentUse == null ? SegmentUse.DEFAULTS : segmentUse;
    limits = limits == null ? ServerLimits.DEFAULTS : limits;
    secrets = secrets == null ? PoolSecrets.none() : secrets;
    masters = List.copyOf(masters);
    if (masters.isEmpty()) {
      throw new IllegalArgumentException("at least one master endpoint is required");
    }
    poolId = poolId == null ? "" : poolId;
    if (nodeId == null || nodeId.isEmpty()) {
      throw new IllegalArgumentException("node id must not be empty");
    }
    if (segments < 1 || segments > 1024) {
      throw new IllegalArgumentException("segment count " + segments + " must be within 1..1024");
    }
    if (memoryBytes < segments * 4096L) {
      throw new IllegalArgumentException(
          "memory " + memoryBytes + " bytes is too small for " + segments + " segments");
    }
  }

  /**
   * A node on {@code host} (advertising it) for tests: TCP, 1 s heartbeats, no huge pages, the
   * master's pool.
   */
  public static StorageConfig local(
      HostPort master, String nodeId, String host, long memoryBytes, int segments) {
    return new StorageConfig(
        List.of(master),
        nodeId,
        host,
        host,
        0,
        0,
        memoryBytes,
        segments,
        Duration.ofSeconds(1),
        HugePageMode.NONE,
        "",
        Transport.TCP,
        Duration.ofMinutes(10));
  }

  public StorageConfig withPoolId(String id) {
    return new StorageConfig(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        heartbeat,
        hugePages,
        id,
        transport,
        tombstoneTtl,
        limits,
        secrets,
        memoryDir,
        disk,
        segmentUse);
  }

  public StorageConfig withHeartbeat(Duration d) {
    return new StorageConfig(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        d,
        hugePages,
        poolId,
        transport,
        tombstoneTtl,
        limits,
        secrets,
        memoryDir,
        disk,
        segmentUse);
  }

  public StorageConfig withSecrets(PoolSecrets s) {
    return new StorageConfig(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        heartbeat,
        hugePages,
        poolId,
        transport,
        tombstoneTtl,
        limits,
        s,
        memoryDir,
        disk,
        segmentUse);
  }

  /** Segments in memory files under {@code dir} (for warm restarts); null for anonymous memory. */
  public StorageConfig withMemoryDir(Path dir) {
    return new StorageConfig(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        heartbeat,
        hugePages,
        poolId,
        transport,
        tombstoneTtl,
        limits,
        secrets,
        dir,
        disk,
        segmentUse);
  }

  /** With a disk tier ({@code null}: none). */
  public StorageConfig withDisk(DiskTier.Settings settings) {
    return new StorageConfig(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        heartbeat,
        hugePages,
        poolId,
        transport,
        tombstoneTtl,
        limits,
        secrets,
        memoryDir,
        settings,
        segmentUse);
  }

  /** With {@code use} for readying and reading the segments. */
  public StorageConfig withSegmentUse(SegmentUse use) {
    return new StorageConfig(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        heartbeat,
        hugePages,
        poolId,
        transport,
        tombstoneTtl,
        limits,
        secrets,
        memoryDir,
        disk,
        use);
  }

  /** With {@code l} as what one peer of the node's RPC server may take. */
  public StorageConfig withLimits(ServerLimits l) {
    return new StorageConfig(
        masters,
        nodeId,
        host,
        advertiseHost,
        port,
        adminPort,
        memoryBytes,
        segments,
        heartbeat,
        hugePages,
        poolId,
        transport,
        tombstoneTtl,
        l,
        secrets,
        memoryDir,
        disk,
        segmentUse);
  }
}
