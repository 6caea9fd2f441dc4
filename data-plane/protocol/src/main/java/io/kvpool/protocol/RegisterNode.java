package io.kvpool.protocol;

import java.util.List;

/**
 * Storage node -> master: join (or re-join) the pool with the node's segments, and how it moves
 * bytes (its TransferEngine's protocol and the devices it opened); its inventory follows in {@link
 * RegisterInventory} chunks when {@code inventoryFollows}.
 */
public record RegisterNode(
    String nodeId,
    String endpoint,
    List<SegmentInfo> segments,
    long highestViewSeen,
    boolean inventoryFollows,
    String transport,
    List<String> devices,
    long diskBytes) {
  public static final int MAX_DEVICES = 64;

  /** The protocol minor from which REGISTER_NODE carries the size of the node's disk tier. */
  public static final int DISK_MINOR = 3;

  public RegisterNode {
    devices = List.copyOf(devices);
    if (diskBytes < 0) {
      throw new IllegalArgumentException("disk tier size " + diskBytes + " must not be negative");
    }
  }

  /** A node without a disk tier. */
  public RegisterNode(
      String nodeId,
      String endpoint,
      List<SegmentInfo> segments,
      long highestViewSeen,
      boolean inventoryFollows,
      String transport,
      List<String> devices) {
    this(nodeId, endpoint, segments, highestViewSeen, inventoryFollows, transport, devices, 0);
  }

  /** A node of a plain TCP pool, without devices. */
  public RegisterNode(
      String nodeId,
      String endpoint,
      List<SegmentInfo> segments,
      long highestViewSeen,
      boolean inventoryFollows) {
    this(nodeId, endpoint, segments, highestViewSeen, inventoryFollows, "tcp", List.of());
  }

  /**
   * Encodes for a master that agreed on protocol minor {@code minor} (the disk tier's size from
   * 2.3).
   */
  public void encode(BodyWriter w, int minor) {
    w.string(nodeId)
        .string(endpoint)
        .list(segments, (b, s) -> s.encode(b))
        .i64(highestViewSeen)
        .bool(inventoryFollows)
        .string(transport)
        .list(devices, BodyWriter::string);
    if (minor >= DISK_MINOR) {
      w.i64(diskBytes);
    }
  }

  public static RegisterNode decode(BodyReader r, int minor) throws ProtocolException {
    RegisterNode msg =
        new RegisterNode(
            r.string(256, "node id"),
            r.string(512, "endpoint"),
            r.list(1024, SegmentInfo.MIN_BYTES, SegmentInfo::decode),
            r.i64(),
            r.bool(),
            r.string(16, "transport"),
            r.list(MAX_DEVICES, 2, rr -> rr.string(64, "device")),
            minor >= DISK_MINOR ? r.length(Long.MAX_VALUE, "disk tier size") : 0);
    r.finish();
    return msg;
  }
}
