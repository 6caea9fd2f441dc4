package io.kvpool.protocol;

import java.util.List;

/** Per-object answer to PutStart: OK with the replicas to write, or why not. */
public record PutStartResult(ErrorCode status, String message, List<ReplicaGrant> replicas) {
  static final int MIN_BYTES = 2 + 2 + 4;

  void encode(BodyWriter w) {
    w.u16(status.code()).string(message).list(replicas, (b, g) -> g.encode(b));
  }

  static PutStartResult decode(BodyReader r) throws ProtocolException {
    return new PutStartResult(ErrorCode.fromCode(r.u16()), r.text(), r.list(255, ReplicaGrant.MIN_BYTES, ReplicaGrant::decode));
  }
}
