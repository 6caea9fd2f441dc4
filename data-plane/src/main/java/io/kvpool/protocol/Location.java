package io.kvpool.protocol;

/** A replica's start within a node: segment and offset. */
public record Location(int segmentId, long offset) {
  static final int MIN_BYTES = 12;

  void encode(BodyWriter w) {
    w.i32(segmentId).i64(offset);
  }

  static Location decode(BodyReader r) throws ProtocolException {
    return new Location(r.index(Integer.MAX_VALUE, "segment id"), r.length(Long.MAX_VALUE, "offset"));
  }
}
