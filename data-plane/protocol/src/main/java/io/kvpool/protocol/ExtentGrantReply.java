package io.kvpool.protocol;

/**
 * Master -> client (protocol 2.4): the extent granted on node {@code nodeId} at {@code endpoint},
 * or why not ({@code status} not OK, the other fields empty).
 */
public record ExtentGrantReply(
    ErrorCode status, String message, String nodeId, String endpoint, Extent extent) {
  public static ExtentGrantReply refused(ErrorCode status, String message) {
    return new ExtentGrantReply(status, message, "", "", new Extent(0, 0, 0, 0, 0, 0, new byte[0]));
  }

  public void encode(BodyWriter w) {
    w.u16(status.code()).string(message).string(nodeId).string(endpoint);
    extent.encode(w);
  }

  public static ExtentGrantReply decode(BodyReader r) throws ProtocolException {
    ExtentGrantReply reply =
        new ExtentGrantReply(
            ErrorCode.fromCode(r.u16()),
            r.text(),
            r.string(256, "node id"),
            r.string(512, "endpoint"),
            Extent.decode(r));
    r.finish();
    return reply;
  }
}
