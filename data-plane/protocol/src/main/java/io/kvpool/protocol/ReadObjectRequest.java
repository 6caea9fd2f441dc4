package io.kvpool.protocol;

/**
 * Client -> storage node (protocol 2.3): send the whole value of object (key, generation) as the
 * reply's payload (a {@link ReadReply} body, then the bytes), from memory or from the node's disk
 * tier after checking its CRC32C. It is how a replica whose location lists no slices (a disk
 * replica) is read. Served only with the read token the master issued with the replica list, before
 * it expires — the same token as READ's.
 */
public record ReadObjectRequest(String key, long generation, long expiresAtMillis, byte[] token) {
  public void encode(BodyWriter w) {
    w.string(key).i64(generation).i64(expiresAtMillis).bytes(token);
  }

  public static ReadObjectRequest decode(BodyReader r) throws ProtocolException {
    ReadObjectRequest req =
        new ReadObjectRequest(
            r.key(), r.i64(), r.i64(), r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "read token"));
    r.finish();
    return req;
  }
}
