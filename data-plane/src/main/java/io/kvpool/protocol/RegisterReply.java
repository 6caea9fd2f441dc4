package io.kvpool.protocol;

/**
 * Master -> storage node: accepted. {@code grantKey} is the per-node secret the master uses to sign write grants,
 * so the node can confine every write to a range the master allocated.
 */
public record RegisterReply(long viewNumber, byte[] grantKey) {
  public void encode(BodyWriter w) {
    w.i64(viewNumber).bytes(grantKey);
  }

  public static RegisterReply decode(BodyReader r) throws ProtocolException {
    RegisterReply reply = new RegisterReply(r.i64(), r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant key"));
    r.finish();
    return reply;
  }
}
