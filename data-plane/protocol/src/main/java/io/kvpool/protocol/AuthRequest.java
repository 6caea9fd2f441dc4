package io.kvpool.protocol;

/**
 * AUTH request: the connecting side's proof that it holds the key its HANDSHAKE named. The reply is
 * empty.
 */
public record AuthRequest(byte[] proof) {
  public void encode(BodyWriter w) {
    w.bytes(proof);
  }

  public static AuthRequest decode(BodyReader r) throws ProtocolException {
    AuthRequest a = new AuthRequest(r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "proof"));
    r.finish();
    return a;
  }
}
