package io.kvpool.protocol;

/** An object replica a storage node holds, as recorded by the node itself (for re-registration). */
public record InventoryEntry(String key, int segmentId, long offset, int length, int checksum) {
  static final int MIN_BYTES = 2 + 1 + 4 + 8 + 4 + 4;

  void encode(BodyWriter w) {
    w.string(key).i32(segmentId).i64(offset).i32(length).i32(checksum);
  }

  static InventoryEntry decode(BodyReader r) throws ProtocolException {
    return new InventoryEntry(r.key(), r.index(Integer.MAX_VALUE, "segment id"),
        r.length(Long.MAX_VALUE, "offset"), r.index(ProtocolLimits.MAX_VALUE_BYTES, "length"), r.i32());
  }
}
