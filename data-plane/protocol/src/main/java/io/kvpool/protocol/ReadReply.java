package io.kvpool.protocol;

/** Storage node -> client: {@code length} payload bytes follow this body. */
public record ReadReply(int length) {
  /** The encoded body's size: the length, an i32. */
  public static final int BODY_BYTES = 4;

  public void encode(BodyWriter w) {
    w.i32(length);
  }

  public static ReadReply decode(BodyReader r) throws ProtocolException {
    ReadReply reply = new ReadReply(r.index(ProtocolLimits.MAX_VALUE_BYTES, "payload length"));
    r.finish();
    return reply;
  }
}
