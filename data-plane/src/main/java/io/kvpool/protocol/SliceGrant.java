package io.kvpool.protocol;

/** A slice the writer may fill, with the master's token for exactly this key and range. */
public record SliceGrant(int segmentId, long offset, int length, int valueOffset, byte[] token) {
  static final int MIN_BYTES = Slice.MIN_BYTES + 2;

  public Slice slice() {
    return new Slice(segmentId, offset, length, valueOffset);
  }

  void encode(BodyWriter w) {
    slice().encode(w);
    w.bytes(token);
  }

  static SliceGrant decode(BodyReader r) throws ProtocolException {
    Slice s = Slice.decode(r);
    return new SliceGrant(s.segmentId(), s.offset(), s.length(), s.valueOffset(),
        r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant token"));
  }
}
