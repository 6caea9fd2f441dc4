package io.kvpool.protocol;

import java.util.List;

/** Master -> storage node holding a replica (its slices in {@code source}): copy it to the target under the grant. */
public record ReplicateRequest(String key, int size, int checksum, List<Slice> source, ReplicaGrant target) {
  public void encode(BodyWriter w) {
    w.string(key).i32(size).i32(checksum).list(source, (b, s) -> s.encode(b));
    target.encode(w);
  }

  public static ReplicateRequest decode(BodyReader r) throws ProtocolException {
    ReplicateRequest req = new ReplicateRequest(r.key(), r.index(ProtocolLimits.MAX_VALUE_BYTES, "size"), r.i32(),
        r.list(ProtocolLimits.MAX_SLICES, Slice.MIN_BYTES, Slice::decode), ReplicaGrant.decode(r));
    r.finish();
    return req;
  }
}
