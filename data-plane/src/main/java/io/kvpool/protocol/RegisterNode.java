package io.kvpool.protocol;

import java.util.List;

/** Storage node -> master: join (or re-join) the pool with the node's segments and inventory. */
public record RegisterNode(String nodeId, String endpoint, List<SegmentInfo> segments, List<InventoryEntry> inventory) {
  public void encode(BodyWriter w) {
    w.string(nodeId).string(endpoint).list(segments, (b, s) -> s.encode(b)).list(inventory, (b, e) -> e.encode(b));
  }

  public static RegisterNode decode(BodyReader r) throws ProtocolException {
    String nodeId = r.string(256, "node id");
    String endpoint = r.string(512, "endpoint");
    List<SegmentInfo> segments = r.list(1024, SegmentInfo.MIN_BYTES, SegmentInfo::decode);
    List<InventoryEntry> inventory = r.list(ProtocolLimits.MAX_INVENTORY, InventoryEntry.MIN_BYTES, InventoryEntry::decode);
    r.finish();
    return new RegisterNode(nodeId, endpoint, segments, inventory);
  }
}
