package io.kvpool.protocol;

import java.util.List;

/**
 * Per-key answer to GetReplicas: the object (generation), its size and checksum, the read lease's
 * end (master time) and the replicas, each with a read token valid until then.
 */
public record ReplicaListResult(
    ErrorCode status,
    int size,
    int checksum,
    long generation,
    long expiresAtMillis,
    List<ReplicaLocation> replicas) {
  static final int MIN_BYTES = 2 + 4 + 4 + 8 + 8 + 4;

  public static ReplicaListResult missing(ErrorCode status) {
    return new ReplicaListResult(status, 0, 0, 0, 0, List.of());
  }

  void encode(BodyWriter w) {
    w.u16(status.code())
        .i32(size)
        .i32(checksum)
        .i64(generation)
        .i64(expiresAtMillis)
        .list(replicas, (b, l) -> l.encode(b));
  }

  static ReplicaListResult decode(BodyReader r) throws ProtocolException {
    return new ReplicaListResult(
        ErrorCode.fromCode(r.u16()),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "size"),
        r.i32(),
        r.i64(),
        r.i64(),
        r.list(255, ReplicaLocation.MIN_BYTES, ReplicaLocation::decode));
  }
}
