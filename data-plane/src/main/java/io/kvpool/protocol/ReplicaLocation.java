package io.kvpool.protocol;

/** Where one complete replica of an object can be read. */
public record ReplicaLocation(String nodeId, String endpoint, int segmentId, long offset, int length) {
  static final int MIN_BYTES = 2 + 2 + 4 + 8 + 4;

  void encode(BodyWriter w) {
    w.string(nodeId).string(endpoint).i32(segmentId).i64(offset).i32(length);
  }

  static ReplicaLocation decode(BodyReader r) throws ProtocolException {
    return new ReplicaLocation(r.string(256, "node id"), r.string(512, "endpoint"), r.index(Integer.MAX_VALUE, "segment id"),
        r.length(Long.MAX_VALUE, "offset"), r.index(ProtocolLimits.MAX_VALUE_BYTES, "length"));
  }
}
