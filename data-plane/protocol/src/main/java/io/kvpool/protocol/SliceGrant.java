package io.kvpool.protocol;

/** A slice the writer may fill, with the master's token for exactly this object and range. */
public record SliceGrant(Slice slice, byte[] token) {
  static final int MIN_BYTES = Slice.MIN_BYTES + 2;

  void encode(BodyWriter w) {
    slice.encode(w);
    w.bytes(token);
  }

  static SliceGrant decode(BodyReader r) throws ProtocolException {
    return new SliceGrant(Slice.decode(r), r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant token"));
  }
}
