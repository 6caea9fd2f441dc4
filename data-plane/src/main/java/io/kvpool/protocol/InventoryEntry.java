package io.kvpool.protocol;

/**
 * A slice of an object replica a storage node holds, as recorded by the node itself (for re-registration):
 * {@code length} bytes at (segment, offset) are the value's bytes from {@code valueOffset} of {@code valueSize}.
 */
public record InventoryEntry(String key, int segmentId, long offset, int length, int valueOffset, int valueSize,
                             int checksum) {
  static final int MIN_BYTES = 2 + 1 + 4 + 8 + 4 + 4 + 4 + 4;

  public Slice slice() {
    return new Slice(segmentId, offset, length, valueOffset);
  }

  void encode(BodyWriter w) {
    w.string(key).i32(segmentId).i64(offset).i32(length).i32(valueOffset).i32(valueSize).i32(checksum);
  }

  static InventoryEntry decode(BodyReader r) throws ProtocolException {
    return new InventoryEntry(r.key(), r.index(Integer.MAX_VALUE, "segment id"), r.length(Long.MAX_VALUE, "offset"),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "length"), r.index(ProtocolLimits.MAX_VALUE_BYTES, "value offset"),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "value size"), r.i32());
  }
}
