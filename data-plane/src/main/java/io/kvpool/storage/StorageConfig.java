package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.nativemem.HugePageMode;
import java.time.Duration;

/** Settings of one storage node process. */
public record StorageConfig(HostPort master, String nodeId, String host, int port, int adminPort, long memoryBytes,
                            int segments, Duration heartbeat, HugePageMode hugePages) {
  public StorageConfig {
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
