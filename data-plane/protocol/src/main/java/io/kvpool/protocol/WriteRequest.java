package io.kvpool.protocol;

/**
 * Client (or replicating node) -> storage node: the next {@code slice.length()} payload bytes after this body are
 * the bytes of object (key, generation) from {@code slice.valueOffset()}, to go to (segment, offset). {@code replicas}
 * is the object's wanted replica count (the node keeps it in its inventory for lease recovery). The grant token must
 * match exactly these fields, signed by the master with the node's key.
 */
public record WriteRequest(String key, long generation, Slice slice, int valueSize, int checksum, int replicas,
                           long expiresAtMillis, byte[] token) {
  public static WriteRequest of(String key, long generation, SliceGrant g, int valueSize, int checksum, int replicas,
                                long expiresAtMillis) {
    return new WriteRequest(key, generation, g.slice(), valueSize, checksum, replicas, expiresAtMillis, g.token());
  }

  public void encode(BodyWriter w) {
    w.string(key).i64(generation);
    slice.encode(w);
    w.i32(valueSize).i32(checksum).u8(replicas).i64(expiresAtMillis).bytes(token);
  }

  /** Smallest encoding of one (a WRITE_BATCH item): a one-byte key and an empty token. */
  static final int MIN_BYTES = 3 + 8 + Slice.MIN_BYTES + 4 + 4 + 1 + 8 + 2;

  public static WriteRequest decode(BodyReader r) throws ProtocolException {
    WriteRequest req = decodeFields(r);
    r.finish();
    return req;
  }

  /** The fields of one write, as a WRITE body or an item of a WRITE_BATCH. */
  static WriteRequest decodeFields(BodyReader r) throws ProtocolException {
    WriteRequest req = new WriteRequest(r.key(), r.i64(), Slice.decode(r),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "value size"), r.i32(), r.u8(), r.i64(),
        r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant token"));
    if ((long) req.slice.valueOffset() + req.slice.length() > req.valueSize) {
      throw new ProtocolException("slice [" + req.slice.valueOffset() + ", +" + req.slice.length()
          + ") exceeds the value size " + req.valueSize);
    }
    return req;
  }
}
