package io.kvpool.protocol;

/** Storage node -> master, about once a second, on behalf of one registration. */
public record Heartbeat(String nodeId, byte[] registrationId, long highestViewSeen) {
  public void encode(BodyWriter w) {
    w.string(nodeId).bytes(registrationId).i64(highestViewSeen);
  }

  public static Heartbeat decode(BodyReader r) throws ProtocolException {
    Heartbeat h =
        new Heartbeat(
            r.string(256, "node id"),
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "registration id"),
            r.i64());
    r.finish();
    return h;
  }
}
