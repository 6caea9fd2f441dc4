package io.kvpool.protocol;

import java.util.List;

/**
 * A complete, verified replica a storage node holds, as the node records it: the object and this
 * node's slices. No slices (protocol 2.3): the replica is a record of the node's disk tier.
 */
public record InventoryObject(
    String key, long generation, int wantedReplicas, int size, int checksum, List<Slice> slices) {
  static final int MIN_BYTES = 3 + 8 + 1 + 4 + 4 + 4;

  /** Whether this replica is in the node's disk tier. */
  public boolean onDisk() {
    return slices.isEmpty();
  }

  void encode(BodyWriter w) {
    w.string(key)
        .i64(generation)
        .u8(wantedReplicas)
        .i32(size)
        .i32(checksum)
        .list(slices, (b, s) -> s.encode(b));
  }

  static InventoryObject decode(BodyReader r) throws ProtocolException {
    return new InventoryObject(
        r.key(),
        r.i64(),
        r.u8(),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "value size"),
        r.i32(),
        r.list(ProtocolLimits.MAX_SLICES, Slice.MIN_BYTES, Slice::decode));
  }
}
