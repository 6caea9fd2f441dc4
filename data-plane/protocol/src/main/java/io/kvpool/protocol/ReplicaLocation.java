package io.kvpool.protocol;

import java.util.List;

/**
 * Where one complete replica can be read: a node, the read token for it, and the slices that make
 * up the value. A replica without slices (protocol 2.3) lives in the node's disk tier: it is read
 * whole with READ_OBJECT.
 */
public record ReplicaLocation(String nodeId, String endpoint, byte[] token, List<Slice> slices) {
  static final int MIN_BYTES = 2 + 2 + 2 + 4;

  /** Whether this replica is in its node's disk tier (no memory slices), not in its memory. */
  public boolean onDisk() {
    return slices.isEmpty();
  }

  void encode(BodyWriter w) {
    w.string(nodeId).string(endpoint).bytes(token).list(slices, (b, s) -> s.encode(b));
  }

  static ReplicaLocation decode(BodyReader r) throws ProtocolException {
    return new ReplicaLocation(
        r.string(256, "node id"),
        r.string(512, "endpoint"),
        r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "read token"),
        r.list(ProtocolLimits.MAX_SLICES, Slice.MIN_BYTES, Slice::decode));
  }
}
