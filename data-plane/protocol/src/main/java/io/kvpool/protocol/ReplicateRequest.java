package io.kvpool.protocol;

import java.util.List;

/**
 * Master -> storage node holding a replica of object (key, generation) in {@code source}: verify it
 * and copy it to the target under the master's grant, which expires at {@code expiresAtMillis}.
 */
public record ReplicateRequest(
    String key,
    long generation,
    int size,
    int checksum,
    int wantedReplicas,
    List<Slice> source,
    long expiresAtMillis,
    ReplicaGrant target) {
  public void encode(BodyWriter w) {
    w.string(key)
        .i64(generation)
        .i32(size)
        .i32(checksum)
        .u8(wantedReplicas)
        .list(source, (b, s) -> s.encode(b))
        .i64(expiresAtMillis);
    target.encode(w);
  }

  public static ReplicateRequest decode(BodyReader r) throws ProtocolException {
    ReplicateRequest req =
        new ReplicateRequest(
            r.key(),
            r.i64(),
            r.index(ProtocolLimits.MAX_VALUE_BYTES, "size"),
            r.i32(),
            r.u8(),
            r.list(ProtocolLimits.MAX_SLICES, Slice.MIN_BYTES, Slice::decode),
            r.i64(),
            ReplicaGrant.decode(r));
    r.finish();
    return req;
  }
}
