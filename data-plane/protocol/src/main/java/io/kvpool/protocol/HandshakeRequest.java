package io.kvpool.protocol;

/**
 * HANDSHAKE request: the common prefix, the connecting master's view (0 for others), the id of the
 * pool key it will prove (empty: none) and its 32-byte nonce.
 */
public record HandshakeRequest(Handshake prefix, long view, byte[] keyId, byte[] nonce) {
  public static final int NONCE_BYTES = 32;

  public void encode(BodyWriter w) {
    prefix.encode(w);
    w.i64(view).bytes(keyId).bytes(nonce);
  }

  /**
   * The fields after the prefix (decode the prefix with {@link Handshake#decodePrefix} and check it
   * first).
   */
  public static HandshakeRequest decodeRest(Handshake prefix, BodyReader r)
      throws ProtocolException {
    HandshakeRequest h =
        new HandshakeRequest(prefix, r.i64(), r.bytes(8, "key id"), r.bytes(NONCE_BYTES, "nonce"));
    r.finish();
    if (h.nonce.length != NONCE_BYTES) {
      throw new ProtocolException(
          "handshake nonce has " + h.nonce.length + " bytes, expected " + NONCE_BYTES);
    }
    return h;
  }
}
