package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.nativemem.HugePageMode;
import java.time.Duration;

/**
 * Settings of one storage node process. An empty {@code poolId} means "the pool of whichever master it registers
 * with"; a given one makes the handshake refuse a master of another pool.
 */
public record StorageConfig(HostPort master, String nodeId, String host, int port, int adminPort, long memoryBytes,
                            int segments, Duration heartbeat, HugePageMode hugePages, String poolId) {
  /** A node that learns its pool from the master. */
  public StorageConfig(HostPort master, String nodeId, String host, int port, int adminPort, long memoryBytes,
                       int segments, Duration heartbeat, HugePageMode hugePages) {
    this(master, nodeId, host, port, adminPort, memoryBytes, segments, heartbeat, hugePages, "");
  }

  public StorageConfig {
    if (poolId == null) {
      poolId = "";
    }
    if (nodeId == null || nodeId.isEmpty()) {
      throw new IllegalArgumentException("node id must not be empty");
    }
    if (segments < 1 || segments > 1024) {
      throw new IllegalArgumentException("segment count " + segments + " must be within 1..1024");
    }
    if (memoryBytes < segments * 4096L) {
      throw new IllegalArgumentException("memory " + memoryBytes + " bytes is too small for " + segments + " segments");
    }
  }
}
