package io.kvpool.protocol;

/** Master -> storage node holding a replica: copy it to the target node under the master's grant. */
public record ReplicateRequest(String key, int sourceSegmentId, long sourceOffset, int length, int checksum,
                               ReplicaGrant target) {
  public void encode(BodyWriter w) {
    w.string(key).i32(sourceSegmentId).i64(sourceOffset).i32(length).i32(checksum);
    target.encode(w);
  }

  public static ReplicateRequest decode(BodyReader r) throws ProtocolException {
    ReplicateRequest req = new ReplicateRequest(r.key(), r.index(Integer.MAX_VALUE, "segment id"),
        r.length(Long.MAX_VALUE, "offset"), r.index(ProtocolLimits.MAX_VALUE_BYTES, "length"), r.i32(),
        ReplicaGrant.decode(r));
    r.finish();
    return req;
  }
}
