package io.kvpool.protocol;

/**
 * Master -> storage node: accepted under the master's view. {@code registrationId} names this
 * registration (its inventory chunks and heartbeats carry it); {@code nodeKey} is the node's key
 * for grants, read tokens and receipts until it registers again; {@code masterTimeMillis} lets the
 * node compare expiries in master time.
 */
public record RegisterReply(
    long view, long masterTimeMillis, byte[] registrationId, byte[] nodeKey) {
  public void encode(BodyWriter w) {
    w.i64(view).i64(masterTimeMillis).bytes(registrationId).bytes(nodeKey);
  }

  public static RegisterReply decode(BodyReader r) throws ProtocolException {
    RegisterReply reply =
        new RegisterReply(
            r.i64(),
            r.i64(),
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "registration id"),
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "node key"));
    r.finish();
    return reply;
  }
}
