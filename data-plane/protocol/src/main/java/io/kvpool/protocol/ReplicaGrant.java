package io.kvpool.protocol;

import java.util.List;

/**
 * Permission to write one replica on one storage node, as one or more slices. Each slice's token is
 * an HMAC with the node's key over the object (key, generation), the range, the value's size and
 * CRC32C and the expiry.
 */
public record ReplicaGrant(String nodeId, String endpoint, List<SliceGrant> slices) {
  static final int MIN_BYTES = 2 + 2 + 4;

  void encode(BodyWriter w) {
    w.string(nodeId).string(endpoint).list(slices, (b, s) -> s.encode(b));
  }

  static ReplicaGrant decode(BodyReader r) throws ProtocolException {
    return new ReplicaGrant(
        r.string(256, "node id"),
        r.string(512, "endpoint"),
        r.list(ProtocolLimits.MAX_SLICES, SliceGrant.MIN_BYTES, SliceGrant::decode));
  }
}
