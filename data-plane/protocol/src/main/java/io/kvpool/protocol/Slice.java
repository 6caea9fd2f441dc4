package io.kvpool.protocol;

/**
 * One contiguous piece of a replica: {@code length} bytes at (segment, offset) holding the value's
 * bytes from {@code valueOffset}. Most replicas are a single slice; a value with no free block
 * large enough is split.
 */
public record Slice(int segmentId, long offset, int length, int valueOffset) {
  public static final int MIN_BYTES = 4 + 8 + 4 + 4;

  public long end() {
    return offset + length;
  }

  public void encode(BodyWriter w) {
    w.i32(segmentId).i64(offset).i32(length).i32(valueOffset);
  }

  public static Slice decode(BodyReader r) throws ProtocolException {
    return new Slice(
        r.index(Integer.MAX_VALUE, "segment id"),
        r.length(Long.MAX_VALUE, "offset"),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "slice length"),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "value offset"));
  }
}
