package io.kvpool.protocol;

import java.util.List;

/**
 * Permission to write one replica on one storage node, as one or more slices, until {@code expiresAtMillis}.
 * Each slice's token is an HMAC over key, segment, offset, length and expiry with the node's grant key.
 */
public record ReplicaGrant(String nodeId, String endpoint, long expiresAtMillis, List<SliceGrant> slices) {
  static final int MIN_BYTES = 2 + 2 + 8 + 4;

  void encode(BodyWriter w) {
    w.string(nodeId).string(endpoint).i64(expiresAtMillis).list(slices, (b, s) -> s.encode(b));
  }

  static ReplicaGrant decode(BodyReader r) throws ProtocolException {
    return new ReplicaGrant(r.string(256, "node id"), r.string(512, "endpoint"), r.i64(),
        r.list(ProtocolLimits.MAX_SLICES, SliceGrant.MIN_BYTES, SliceGrant::decode));
  }
}
