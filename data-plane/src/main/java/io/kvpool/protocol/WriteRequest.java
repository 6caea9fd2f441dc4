package io.kvpool.protocol;

/**
 * Client (or replicating node) -> storage node: the next {@code length} payload bytes after this body go to
 * (segment, offset); they are the value's bytes from {@code valueOffset} of {@code valueSize}. The range, key and
 * expiry must match a token the master signed for this node.
 */
public record WriteRequest(String key, int segmentId, long offset, int length, int valueOffset, int valueSize,
                           int checksum, long expiresAtMillis, byte[] token) {
  public static WriteRequest of(String key, ReplicaGrant g, SliceGrant s, int valueSize, int checksum) {
    return new WriteRequest(key, s.segmentId(), s.offset(), s.length(), s.valueOffset(), valueSize, checksum,
        g.expiresAtMillis(), s.token());
  }

  public void encode(BodyWriter w) {
    w.string(key).i32(segmentId).i64(offset).i32(length).i32(valueOffset).i32(valueSize).i32(checksum)
        .i64(expiresAtMillis).bytes(token);
  }

  public static WriteRequest decode(BodyReader r) throws ProtocolException {
    WriteRequest req = new WriteRequest(r.key(), r.index(Integer.MAX_VALUE, "segment id"),
        r.length(Long.MAX_VALUE, "offset"), r.index(ProtocolLimits.MAX_VALUE_BYTES, "length"),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "value offset"), r.index(ProtocolLimits.MAX_VALUE_BYTES, "value size"),
        r.i32(), r.i64(), r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant token"));
    r.finish();
    if ((long) req.valueOffset + req.length > req.valueSize) {
      throw new ProtocolException("slice [" + req.valueOffset + ", +" + req.length + ") exceeds the value size "
          + req.valueSize);
    }
    return req;
  }
}
