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
    return builder(List.of(master), nodeId, memoryBytes)
        .address(host, host)
        .segments(segments)
        .build();
  }

  /**
   * A node of {@code masters} with {@code memoryBytes} in one segment, on the loopback address with
   * ephemeral ports; TCP, 1 s heartbeats, no huge pages, tombstones kept 10 minutes, the master's
   * pool, default limits, no keys, anonymous memory, no disk tier: change what differs.
   */
  public static Builder builder(List<HostPort> masters, String nodeId, long memoryBytes) {
    return new Builder(masters, nodeId, memoryBytes);
  }

  /** These settings as a builder, to change some. */
  public Builder toBuilder() {
    return new Builder(masters, nodeId, memoryBytes)
        .address(host, advertiseHost)
        .ports(port, adminPort)
        .segments(segments)
        .heartbeat(heartbeat)
        .hugePages(hugePages)
        .poolId(poolId)
        .transport(transport)
        .tombstoneTtl(tombstoneTtl)
        .limits(limits)
        .secrets(secrets)
        .memoryDir(memoryDir)
        .disk(disk)
        .segmentUse(segmentUse);
  }

  public StorageConfig withPoolId(String id) {
    return toBuilder().poolId(id).build();
  }

  public StorageConfig withHeartbeat(Duration d) {
    return toBuilder().heartbeat(d).build();
  }

  public StorageConfig withSecrets(PoolSecrets s) {
    return toBuilder().secrets(s).build();
  }

  /** With segments kept in memory files under {@code dir} ({@code null}: anonymous memory). */
  public StorageConfig withMemoryDir(Path dir) {
    return toBuilder().memoryDir(dir).build();
  }

  /** With a disk tier ({@code null}: none). */
  public StorageConfig withDisk(DiskTier.Settings settings) {
    return toBuilder().disk(settings).build();
  }

  /** With {@code use} for readying and reading the segments. */
  public StorageConfig withSegmentUse(SegmentUse use) {
    return toBuilder().segmentUse(use).build();
  }

  /** With {@code l} as what one peer of the node's RPC server may take. */
  public StorageConfig withLimits(ServerLimits l) {
    return toBuilder().limits(l).build();
  }

  /** Settings of a storage node, checked when built (see the record's components). */
  public static final class Builder {
    private final List<HostPort> masters;
    private final String nodeId;
    private final long memoryBytes;
    private String host = "127.0.0.1";
    private String advertiseHost = "127.0.0.1";
    private int port;
    private int adminPort;
    private int segments = 1;
    private Duration heartbeat = Duration.ofSeconds(1);
    private HugePageMode hugePages = HugePageMode.NONE;
    private String poolId = "";
    private Transport transport = Transport.TCP;
    private Duration tombstoneTtl = Duration.ofMinutes(10);
    private ServerLimits limits = ServerLimits.DEFAULTS;
    private PoolSecrets secrets = PoolSecrets.none();
    private Path memoryDir;
    private DiskTier.Settings disk;
    private SegmentUse segmentUse = SegmentUse.DEFAULTS;

    private Builder(List<HostPort> masters, String nodeId, long memoryBytes) {
      this.masters = masters;
      this.nodeId = nodeId;
      this.memoryBytes = memoryBytes;
    }

    /** Binds {@code host} and tells peers to dial {@code advertiseHost}. */
    public Builder address(String host, String advertiseHost) {
      this.host = host;
      this.advertiseHost = advertiseHost;
      return this;
    }

    /** The RPC and admin ports (0: ephemeral). */
    public Builder ports(int port, int adminPort) {
      this.port = port;
      this.adminPort = adminPort;
      return this;
    }

    public Builder segments(int segments) {
      this.segments = segments;
      return this;
    }

    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = heartbeat;
      return this;
    }

    public Builder hugePages(HugePageMode hugePages) {
      this.hugePages = hugePages;
      return this;
    }

    public Builder poolId(String poolId) {
      this.poolId = poolId;
      return this;
    }

    public Builder transport(Transport transport) {
      this.transport = transport;
      return this;
    }

    public Builder tombstoneTtl(Duration tombstoneTtl) {
      this.tombstoneTtl = tombstoneTtl;
      return this;
    }

    public Builder limits(ServerLimits limits) {
      this.limits = limits;
      return this;
    }

    public Builder secrets(PoolSecrets secrets) {
      this.secrets = secrets;
      return this;
    }

    public Builder memoryDir(Path memoryDir) {
      this.memoryDir = memoryDir;
      return this;
    }

    public Builder disk(DiskTier.Settings disk) {
      this.disk = disk;
      return this;
    }

    public Builder segmentUse(SegmentUse segmentUse) {
      this.segmentUse = segmentUse;
      return this;
    }

    /** The settings; IllegalArgumentException when they cannot run a node. */
    public StorageConfig build() {
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
          segmentUse);
    }
  }
}
