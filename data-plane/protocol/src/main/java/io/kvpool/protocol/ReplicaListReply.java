package io.kvpool.protocol;

import java.util.List;

/** Master -> client: one result per requested key, in order. */
public record ReplicaListReply(List<ReplicaListResult> results) {
  public void encode(BodyWriter w) {
    w.list(results, (b, x) -> x.encode(b));
  }

  public static ReplicaListReply decode(BodyReader r) throws ProtocolException {
    ReplicaListReply reply =
        new ReplicaListReply(
            r.list(
                ProtocolLimits.MAX_BATCH, ReplicaListResult.MIN_BYTES, ReplicaListResult::decode));
    r.finish();
    return reply;
  }
}
