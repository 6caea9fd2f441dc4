package io.kvpool.protocol;

/**
 * Client -> storage node: send {@code length} bytes from (segment, offset) of object (key,
 * generation) as the reply's payload. Served only with the read token the master issued with the
 * replica list, before it expires.
 */
public record ReadRequest(
    String key,
    long generation,
    int segmentId,
    long offset,
    int length,
    long expiresAtMillis,
    byte[] token) {
  public void encode(BodyWriter w) {
    w.string(key)
        .i64(generation)
        .i32(segmentId)
        .i64(offset)
        .i32(length)
        .i64(expiresAtMillis)
        .bytes(token);
  }

  /** Smallest encoding of one (a READ_BATCH item): a one-byte key and an empty token. */
  static final int MIN_BYTES = 3 + 8 + 4 + 8 + 4 + 8 + 2;

  public static ReadRequest decode(BodyReader r) throws ProtocolException {
    ReadRequest req = decodeFields(r);
    r.finish();
    return req;
  }

  /**
   * The fields of one read, as a READ body or an item of a READ_BATCH. Segment, offset and length
   * are taken as they come, negative or oversized: the storage node answers such a read with an
   * error reply (PROTOCOL.md, "To a storage node") instead of closing the connection as for an
   * undecodable body.
   */
  static ReadRequest decodeFields(BodyReader r) throws ProtocolException {
    return new ReadRequest(
        r.key(),
        r.i64(),
        r.i32(),
        r.i64(),
        r.i32(),
        r.i64(),
        r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "read token"));
  }
}
