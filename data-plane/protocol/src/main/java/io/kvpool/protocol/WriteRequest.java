package io.kvpool.protocol;

/**
 * Client (or replicating node) -> storage node: the next {@code slice.length()} payload bytes after
 * this body are the bytes of object (key, generation) from {@code slice.valueOffset()}, to go to
 * (segment, offset). {@code replicas} is the object's wanted replica count (the node keeps it in
 * its inventory for lease recovery). The grant token must match exactly these fields, signed by the
 * master with the node's key.
 */
public record WriteRequest(
    String key,
    long generation,
    Slice slice,
    int valueSize,
    int checksum,
    int replicas,
    long expiresAtMillis,
    byte[] token) {
  public static WriteRequest of(
      String key,
      long generation,
      SliceGrant g,
      int valueSize,
      int checksum,
      int replicas,
      long expiresAtMillis) {
    return new WriteRequest(
        key, generation, g.slice(), valueSize, checksum, replicas, expiresAtMillis, g.token());
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

  /**
   * The fields of one write, as a WRITE body or an item of a WRITE_BATCH. The slice's numbers and
   * the value size are taken as they come, negative or oversized: the storage node answers such a
   * write with an error reply (PROTOCOL.md, "To a storage node") instead of closing the connection
   * as for an undecodable body.
   */
  static WriteRequest decodeFields(BodyReader r) throws ProtocolException {
    return new WriteRequest(
        r.key(),
        r.i64(),
        new Slice(r.i32(), r.i64(), r.i32(), r.i32()),
        r.i32(),
        r.i32(),
        r.u8(),
        r.i64(),
        r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant token"));
  }
}
