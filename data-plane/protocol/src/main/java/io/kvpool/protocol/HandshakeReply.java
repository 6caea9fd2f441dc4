package io.kvpool.protocol;

/**
 * HANDSHAKE reply: the common prefix, the server's view (a master's leadership view; a storage
 * node's highest accepted view), its state, the leader's endpoint when a master knows it, and the
 * authentication fields.
 */
public record HandshakeReply(
    Handshake prefix,
    long view,
    ServerState state,
    String leaderEndpoint,
    boolean auth,
    byte[] nonce,
    byte[] proof) {
  public static HandshakeReply unauthenticated(
      Handshake prefix, long view, ServerState state, String leader) {
    return new HandshakeReply(prefix, view, state, leader, false, new byte[0], new byte[0]);
  }

  public void encode(BodyWriter w) {
    prefix.encode(w);
    w.i64(view).u8(state.code()).string(leaderEndpoint).bool(auth).bytes(nonce).bytes(proof);
  }

  public static HandshakeReply decodeRest(Handshake prefix, BodyReader r) throws ProtocolException {
    HandshakeReply h =
        new HandshakeReply(
            prefix,
            r.i64(),
            ServerState.fromCode(r.u8()),
            r.string(512, "leader endpoint"),
            r.bool(),
            r.bytes(HandshakeRequest.NONCE_BYTES, "nonce"),
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "proof"));
    r.finish();
    return h;
  }
}
