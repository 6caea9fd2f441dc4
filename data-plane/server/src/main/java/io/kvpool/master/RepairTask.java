package io.kvpool.master;

import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicateRequest;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.security.NodeKey;
import java.util.ArrayList;
import java.util.List;

/**
 * Copy one replica of object (key, generation) from {@code source} (a live holder) to the allocated
 * {@code target}.
 */
public record RepairTask(
    String key,
    long generation,
    int size,
    int checksum,
    int wantedReplicas,
    Replica source,
    String sourceEndpoint,
    Replica target,
    String targetEndpoint,
    NodeKey targetKey,
    long expiresAtMillis) {
  /**
   * The REPLICATE request for the source, with the target's grants (signed here, outside the
   * metadata lock).
   */
  ReplicateRequest request() {
    List<SliceGrant> grants = new ArrayList<>(target.slices().size());
    for (Slice s : target.slices()) {
      grants.add(
          new SliceGrant(
              s,
              targetKey.writeGrant(
                  key, generation, s, size, checksum, wantedReplicas, expiresAtMillis)));
    }
    return new ReplicateRequest(
        key,
        generation,
        size,
        checksum,
        wantedReplicas,
        source.slices(),
        expiresAtMillis,
        new ReplicaGrant(target.nodeId(), targetEndpoint, grants));
  }
}
