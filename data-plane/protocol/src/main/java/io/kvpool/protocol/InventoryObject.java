package io.kvpool.protocol;

import java.util.List;

/**
 * A complete, verified replica a storage node holds, as the node records it: the object and this
 * node's slices. No slices (protocol 2.3): the replica is a record of the node's disk tier. {@code
 * metadata}: the object's block metadata as its writer sent it (protocol 2.5), null when none; on
 * the wire it travels in {@link RegisterInventory}'s trailing list, not in this record's encoding.
 */
public record InventoryObject(
    String key,
    long generation,
    int wantedReplicas,
    int size,
    int checksum,
    List<Slice> slices,
    BlockMetadata metadata) {
  static final int MIN_BYTES = 3 + 8 + 1 + 4 + 4 + 4;

  /** A replica without block metadata. */
  public InventoryObject(
      String key, long generation, int wantedReplicas, int size, int checksum, List<Slice> slices) {
    this(key, generation, wantedReplicas, size, checksum, slices, null);
  }

  /** Whether this replica is in the node's disk tier. */
  public boolean onDisk() {
    return slices.isEmpty();
  }

  /** This replica with {@code m} as its block metadata. */
  public InventoryObject withMetadata(BlockMetadata m) {
    return new InventoryObject(key, generation, wantedReplicas, size, checksum, slices, m);
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
