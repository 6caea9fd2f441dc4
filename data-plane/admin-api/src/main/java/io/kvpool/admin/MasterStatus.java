package io.kvpool.admin;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * The master's {@code GET /status} document, version {@link AdminJson#API_VERSION}: one type for
 * the master that writes it and the operator and CLI that read it. Readers ignore fields they do
 * not know, so a newer master's additions never break an older reader; a reader checks {@code
 * apiVersion} before trusting the rest.
 *
 * @param role {@code LEADER} or {@code STANDBY}
 * @param state {@code SERVING}, {@code RECOVERING} (a new leader rebuilding its index) or {@code
 *     STANDBY}
 * @param view the leadership view this master serves (0 for a standby)
 * @param leader the current leader as this master knows it, or null
 * @param events the KV events this master publishes, null when it publishes none (or is older)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record MasterStatus(
    String apiVersion,
    String poolId,
    String role,
    String state,
    long view,
    Leader leader,
    String releaseVersion,
    String protocolVersion,
    Recovery recovery,
    List<NodeStatus> nodes,
    long capacityBytes,
    long usedBytes,
    long objectCount,
    Counters counters,
    CacheSignals cacheSignals,
    Events events) {
  public MasterStatus {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }

  /**
   * The memory tier's fill: its entry in {@code cacheSignals.tiers}, else (a master that reports no
   * signals or no tiers) the totals, which are then memory only. The one figure of a pool's
   * fullness: what the operator's autoscaler decides on and the pool's {@code
   * status.cacheSignals.fullnessPercent} shows. A tier that memory spills into (disk) is not in it:
   * memory there is full by design, and a large disk would hide a memory that spills all the time.
   */
  public Tier memoryTier() {
    List<Tier> tiers = cacheSignals == null ? List.of() : cacheSignals.tiers();
    return tiers.stream()
        .filter(t -> Tier.MEMORY.equals(t.name()))
        .findFirst()
        .orElse(new Tier(Tier.MEMORY, capacityBytes, usedBytes, objectCount));
  }

  /** Nodes the master counts as ALIVE. */
  public int aliveNodes() {
    return (int) nodes.stream().filter(n -> n.nodeState() == NodeState.ALIVE).count();
  }

  public boolean leading() {
    return masterRole() == MasterRole.LEADER;
  }

  /** {@link #role()} typed. */
  public MasterRole masterRole() {
    return MasterRole.of(role);
  }

  /** {@link #state()} typed. */
  public MasterState masterState() {
    return MasterState.of(state);
  }

  /** Whether this master leads and serves: its lease recovery, if any, is over. */
  public boolean serving() {
    return leading() && masterState() == MasterState.SERVING;
  }

  /**
   * The KV events of a master (docs/events.md).
   *
   * @param topic the ZMQ topic of every batch, {@code kv@pool:<pool>@<model>}
   * @param port the PUB socket's port
   * @param replayPort the replay socket's port, -1 without one
   * @param sequence the sequence of the last batch published, -1 before the first (a standby keeps
   *     the last of its own leadership)
   * @param dropped residency changes dropped on a full queue since the process started
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Events(String topic, int port, int replayPort, long sequence, long dropped) {}

  /** The leading master: its pod (empty outside Kubernetes), RPC endpoint and admin endpoint. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Leader(String pod, String endpoint, String adminEndpoint) {}

  /**
   * Lease recovery of the current view: whether it is under way, how many objects inventories
   * brought back, and the storage nodes the previous leader recorded that have not registered yet
   * (recovery waits for them).
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Recovery(boolean recovering, long objectsRecovered, List<String> awaitedNodes) {
    public Recovery {
      awaitedNodes = awaitedNodes == null ? List.of() : List.copyOf(awaitedNodes);
    }

    /**
     * One phrase for status messages: recovery under way, and the recorded nodes it still waits
     * for.
     */
    public String describe() {
      return awaitedNodes.isEmpty()
          ? "lease recovery under way"
          : "lease recovery under way, waiting for storage"
              + " node(s) "
              + String.join(", ", awaitedNodes)
              + " to register";
    }
  }

  /**
   * One storage node as the master sees it.
   *
   * @param state the node's {@link NodeState} by name; read it typed with {@link #nodeState()}
   * @param transport the node's TransferEngine protocol (tcp, rdma, ascend)
   * @param devices the devices it opened, e.g. {@code ascend:3}
   * @param disk the node's disk tier, null without one
   * @param silent ALIVE or DRAINING but not heard from for 3 s (or half the node TTL when shorter):
   *     frozen, overloaded or cut off, not dead yet; the leader places nothing new on it and lists
   *     its replicas only when no other replica is left (false from a master that does not say)
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record NodeStatus(
      String id,
      String endpoint,
      String state,
      long capacityBytes,
      long usedBytes,
      long replicas,
      String version,
      String protocolVersion,
      long lastHeartbeatMillisAgo,
      String transport,
      List<String> devices,
      NodeDisk disk,
      boolean silent) {
    public NodeStatus {
      devices = devices == null ? List.of() : List.copyOf(devices);
    }

    /** A node without a disk tier. */
    public NodeStatus(
        String id,
        String endpoint,
        String state,
        long capacityBytes,
        long usedBytes,
        long replicas,
        String version,
        String protocolVersion,
        long lastHeartbeatMillisAgo,
        String transport,
        List<String> devices) {
      this(
          id,
          endpoint,
          state,
          capacityBytes,
          usedBytes,
          replicas,
          version,
          protocolVersion,
          lastHeartbeatMillisAgo,
          transport,
          devices,
          null,
          false);
    }

    /** A TCP node without devices. */
    public NodeStatus(
        String id,
        String endpoint,
        String state,
        long capacityBytes,
        long usedBytes,
        long replicas,
        String version,
        String protocolVersion,
        long lastHeartbeatMillisAgo) {
      this(
          id,
          endpoint,
          state,
          capacityBytes,
          usedBytes,
          replicas,
          version,
          protocolVersion,
          lastHeartbeatMillisAgo,
          "tcp",
          List.of());
    }

    /** {@link #state()} typed; a state this reader does not know is {@link NodeState#UNKNOWN}. */
    public NodeState nodeState() {
      return NodeState.of(state);
    }
  }

  /**
   * A storage node's disk tier as its heartbeats report it (protocol 2.4; a node of 2.3 shows its
   * registered size, nothing used, healthy).
   *
   * @param capacityBytes the tier's cap
   * @param usedBytes what its files occupy
   * @param healthy false while the tier is degraded (its writes fail): the node serves from memory
   * @param message why it is degraded, one sentence; empty while healthy
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record NodeDisk(long capacityBytes, long usedBytes, boolean healthy, String message) {
    public NodeDisk {
      message = message == null ? "" : message;
    }
  }

  /**
   * Event counters since the master process started, and current counts.
   *
   * @param repairedBytes bytes of values this master had copied between storage nodes (repairs and
   *     drains); with {@code repairs}, what re-replication cost
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Counters(
      long puts,
      long gets,
      long getHits,
      long getMisses,
      long evictions,
      long objectsLost,
      long repairs,
      long versionMismatches,
      long pendingObjects,
      long pinnedObjects,
      long underReplicated,
      long tombstones,
      long repairedBytes) {
    /** Counters of a master that does not report copied bytes (before 0.3). */
    public Counters(
        long puts,
        long gets,
        long getHits,
        long getMisses,
        long evictions,
        long objectsLost,
        long repairs,
        long versionMismatches,
        long pendingObjects,
        long pinnedObjects,
        long underReplicated,
        long tombstones) {
      this(
          puts,
          gets,
          getHits,
          getMisses,
          evictions,
          objectsLost,
          repairs,
          versionMismatches,
          pendingObjects,
          pinnedObjects,
          underReplicated,
          tombstones,
          0);
    }
  }

  /**
   * One storage tier's fill: {@code memory}, and {@code disk} where storage nodes have disk tiers
   * (a reader must expect more names).
   *
   * @param name the tier, e.g. {@code memory}
   * @param objects the objects it holds: {@code memory} every object with a replica in memory
   *     (pending puts included), {@code disk} the readable objects whose every replica is on a disk
   *     tier (the media of their KV events); 0 from a master before 0.3
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Tier(String name, long capacityBytes, long usedBytes, long objects) {
    /** The name of the memory tier. */
    public static final String MEMORY = "memory";

    /** Used over capacity, 0 for a tier without capacity. */
    public double fullness() {
      return capacityBytes <= 0 ? 0.0 : (double) usedBytes / capacityBytes;
    }
  }

  /**
   * What tells a pool that is too small from keys that were never there, over the last {@code
   * windowSeconds}.
   *
   * @param tiers fill of each tier
   * @param evictedBytesPerSecond bytes of replicas freed by eviction per second
   * @param lookupsPerSecond keys looked up per second
   * @param missesPerSecond lookups that found nothing, per second
   * @param capacityMissesPerSecond misses for a key the pool evicted recently, per second
   * @param missRatio misses over lookups in the window (0 without lookups)
   * @param evictedBytes bytes evicted since the master started
   * @param capacityMisses capacity misses since the master started
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record CacheSignals(
      int windowSeconds,
      List<Tier> tiers,
      double evictedBytesPerSecond,
      double lookupsPerSecond,
      double missesPerSecond,
      double capacityMissesPerSecond,
      double missRatio,
      long evictedBytes,
      long capacityMisses) {
    public CacheSignals {
      tiers = tiers == null ? List.of() : List.copyOf(tiers);
    }
  }
}
