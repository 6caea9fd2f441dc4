package io.kvpool.protocol;

import java.util.List;

/**
 * Storage node -> master: join (or re-join) the pool with the node's segments, and how it moves bytes (its
 * TransferEngine's protocol and the devices it opened); its inventory follows in {@link RegisterInventory} chunks
 * when {@code inventoryFollows}.
 */
public record RegisterNode(String nodeId, String endpoint, List<SegmentInfo> segments, long highestViewSeen,
                           boolean inventoryFollows, String transport, List<String> devices) {
  public static final int MAX_DEVICES = 64;

  public RegisterNode {
    devices = List.copyOf(devices);
  }

  /** A node of a plain TCP pool, without devices. */
  public RegisterNode(String nodeId, String endpoint, List<SegmentInfo> segments, long highestViewSeen,
                      boolean inventoryFollows) {
    this(nodeId, endpoint, segments, highestViewSeen, inventoryFollows, "tcp", List.of());
  }

  public void encode(BodyWriter w) {
    w.string(nodeId).string(endpoint).list(segments, (b, s) -> s.encode(b)).i64(highestViewSeen)
        .bool(inventoryFollows).string(transport).list(devices, BodyWriter::string);
  }

  public static RegisterNode decode(BodyReader r) throws ProtocolException {
    RegisterNode msg = new RegisterNode(r.string(256, "node id"), r.string(512, "endpoint"),
        r.list(1024, SegmentInfo.MIN_BYTES, SegmentInfo::decode), r.i64(), r.bool(), r.string(16, "transport"),
        r.list(MAX_DEVICES, 2, rr -> rr.string(64, "device")));
    r.finish();
    return msg;
  }
}
