package io.kvpool.protocol;

/**
 * Permission to write {@code length} bytes at (segment, offset) on one storage node, signed by the master.
 * The token is an HMAC over key, segment, offset, length and expiry with the node's grant key.
 */
public record ReplicaGrant(String nodeId, String endpoint, int segmentId, long offset, int length,
                           long expiresAtMillis, byte[] token) {
  static final int MIN_BYTES = 2 + 2 + 4 + 8 + 4 + 8 + 2;

  void encode(BodyWriter w) {
    w.string(nodeId).string(endpoint).i32(segmentId).i64(offset).i32(length).i64(expiresAtMillis).bytes(token);
  }

  static ReplicaGrant decode(BodyReader r) throws ProtocolException {
    return new ReplicaGrant(r.string(256, "node id"), r.string(512, "endpoint"), r.index(Integer.MAX_VALUE, "segment id"),
        r.length(Long.MAX_VALUE, "offset"), r.index(ProtocolLimits.MAX_VALUE_BYTES, "length"), r.i64(),
        r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant token"));
  }
}
