package io.kvpool.master;

import io.kvpool.protocol.DiskFigures;
import io.kvpool.protocol.ServerState;
import java.util.List;

/**
 * Point-in-time copy of the pool's shape for status and metrics (counts kept incrementally:
 * O(nodes) to take).
 */
public record PoolSnapshot(
    long view,
    ServerState state,
    List<Node> nodes,
    long capacityBytes,
    long usedBytes,
    long objectCount,
    long objectsOnDisk,
    long pendingObjects,
    long pinnedObjects,
    long underReplicated,
    long tombstones,
    long objectsRecovered,
    List<String> awaitedNodes) {
  /** One node as shown in status. */
  public record Node(
      String id,
      String endpoint,
      NodeState state,
      long capacityBytes,
      long usedBytes,
      long replicas,
      String version,
      String protocol,
      long lastHeartbeatMillisAgo,
      boolean silent,
      String transport,
      List<String> devices,
      DiskFigures disk) {}
}
