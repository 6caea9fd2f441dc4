package io.kvpool.protocol;

/** Body of an error frame. */
public record ErrorReply(ErrorCode code, String message) {
  public void encode(BodyWriter w) {
    String m = message.length() > 2000 ? message.substring(0, 2000) : message;
    w.u16(code.code()).string(m);
  }

  public static ErrorReply decode(BodyReader r) throws ProtocolException {
    ErrorReply e = new ErrorReply(ErrorCode.fromCode(r.u16()), r.text());
    r.finish();
    return e;
  }
}
