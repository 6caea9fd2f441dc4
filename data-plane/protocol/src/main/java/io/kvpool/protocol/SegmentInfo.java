package io.kvpool.protocol;

/** One memory segment a storage node offers. */
public record SegmentInfo(int id, long size) {
  static final int MIN_BYTES = 12;

  void encode(BodyWriter w) {
    w.i32(id).i64(size);
  }

  static SegmentInfo decode(BodyReader r) throws ProtocolException {
    return new SegmentInfo(
        r.index(Integer.MAX_VALUE, "segment id"), r.length(Long.MAX_VALUE, "segment size"));
  }
}
