package io.kvpool.protocol;

import java.util.List;

/**
 * Storage node -> master, one-way (protocol 2.3): replicas the node's disk tier no longer holds —
 * reclaimed to stay under its cap, a record that failed its checksum, a spill that could not be
 * written — on behalf of one registration. The master forgets those replicas (an object left
 * without any is gone, as after an eviction). Never answered.
 */
public record DiskDrop(String nodeId, byte[] registrationId, List<PutRef> objects) {
  public void encode(BodyWriter w) {
    w.string(nodeId).bytes(registrationId).list(objects, (b, o) -> o.encode(b));
  }

  public static DiskDrop decode(BodyReader r) throws ProtocolException {
    DiskDrop d =
        new DiskDrop(
            r.string(256, "node id"),
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "registration id"),
            r.list(ProtocolLimits.MAX_BATCH, PutRef.MIN_BYTES, PutRef::decode));
    r.finish();
    return d;
  }
}
