package io.kvpool.master;

import java.util.List;

/** Point-in-time copy of the pool's shape for status and metrics. */
public record PoolSnapshot(List<Node> nodes, long capacityBytes, long usedBytes, long objectCount, long pendingObjects,
                           long activeLeases, long pinnedObjects, long underReplicated) {
  /** One node as shown in status. */
  public record Node(String id, String endpoint, String state, long capacityBytes, long usedBytes, String version,
                     String protocol, long lastHeartbeatMillisAgo) {
  }
}
