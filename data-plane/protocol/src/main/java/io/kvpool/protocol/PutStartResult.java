package io.kvpool.protocol;

import java.util.List;

/**
 * Per-object answer to PutStart: OK with the object's generation (the put's identity), the grants'
 * expiry and the replicas to write; or why not.
 */
public record PutStartResult(
    ErrorCode status,
    String message,
    long generation,
    long expiresAtMillis,
    List<ReplicaGrant> replicas) {
  static final int MIN_BYTES = 2 + 2 + 8 + 8 + 4;

  public static PutStartResult refused(ErrorCode status, String message) {
    return new PutStartResult(status, message, 0, 0, List.of());
  }

  void encode(BodyWriter w) {
    w.u16(status.code())
        .string(message)
        .i64(generation)
        .i64(expiresAtMillis)
        .list(replicas, (b, g) -> g.encode(b));
  }

  static PutStartResult decode(BodyReader r) throws ProtocolException {
    return new PutStartResult(
        ErrorCode.fromCode(r.u16()),
        r.text(),
        r.i64(),
        r.i64(),
        r.list(255, ReplicaGrant.MIN_BYTES, ReplicaGrant::decode));
  }
}
