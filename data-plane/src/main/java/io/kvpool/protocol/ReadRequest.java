package io.kvpool.protocol;

/** Client -> storage node: send {@code length} bytes from (segment, offset) as the reply's payload. */
public record ReadRequest(int segmentId, long offset, int length) {
  public void encode(BodyWriter w) {
    w.i32(segmentId).i64(offset).i32(length);
  }

  public static ReadRequest decode(BodyReader r) throws ProtocolException {
    ReadRequest req = new ReadRequest(r.index(Integer.MAX_VALUE, "segment id"), r.length(Long.MAX_VALUE, "offset"),
        r.index(ProtocolLimits.MAX_VALUE_BYTES, "length"));
    r.finish();
    return req;
  }
}
