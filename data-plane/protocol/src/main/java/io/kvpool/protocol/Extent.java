package io.kvpool.protocol;

/**
 * An extent (protocol 2.4): {@code length} bytes at (segment, offset) of one storage node, granted
 * to one client until {@code expiresAtMillis} together with the generations [{@code
 * firstGeneration}, {@code firstGeneration + generations}), so that the client can put small values
 * straight into it (EXTENT_WRITE). {@code firstGeneration} names the extent. The token is the
 * master's signature with the node's key (PROTOCOL.md, "Extents").
 */
public record Extent(
    long firstGeneration,
    int generations,
    int segmentId,
    long offset,
    int length,
    long expiresAtMillis,
    byte[] token) {
  static final int MIN_BYTES = 8 + 4 + 4 + 8 + 4 + 8 + 2;

  public void encode(BodyWriter w) {
    w.i64(firstGeneration)
        .i32(generations)
        .i32(segmentId)
        .i64(offset)
        .i32(length)
        .i64(expiresAtMillis)
        .bytes(token);
  }

  /** The numbers are taken as they come: the storage node checks them against the token. */
  public static Extent decode(BodyReader r) throws ProtocolException {
    return new Extent(
        r.i64(),
        r.i32(),
        r.i32(),
        r.i64(),
        r.i32(),
        r.i64(),
        r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "extent token"));
  }

  /** Whether {@code generation} is one of this extent's. */
  public boolean owns(long generation) {
    return generation >= firstGeneration && generation - firstGeneration < generations;
  }
}
