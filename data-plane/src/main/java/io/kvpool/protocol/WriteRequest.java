package io.kvpool.protocol;

/**
 * Client (or replicating node) -> storage node: the next {@code length} payload bytes after this body go to
 * (segment, offset). The grant fields must match a grant the master signed for this node.
 */
public record WriteRequest(String key, int segmentId, long offset, int length, int checksum,
                           long expiresAtMillis, byte[] token) {
  public static WriteRequest of(String key, ReplicaGrant g, int checksum) {
    return new WriteRequest(key, g.segmentId(), g.offset(), g.length(), checksum, g.expiresAtMillis(), g.token());
  }

  public void encode(BodyWriter w) {
    w.string(key).i32(segmentId).i64(offset).i32(length).i32(checksum).i64(expiresAtMillis).bytes(token);
  }

  public static WriteRequest decode(BodyReader r) throws ProtocolException {
    WriteRequest req = new WriteRequest(r.key(), r.index(Integer.MAX_VALUE, "segment id"), r.length(Long.MAX_VALUE, "offset"),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "length"), r.i32(), r.i64(),
        r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant token"));
    r.finish();
    return req;
  }
}
