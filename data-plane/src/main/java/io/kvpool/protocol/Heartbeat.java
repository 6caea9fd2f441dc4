package io.kvpool.protocol;

/** Storage node -> master, about once a second. */
public record Heartbeat(String nodeId, long viewNumber) {
  public void encode(BodyWriter w) {
    w.string(nodeId).i64(viewNumber);
  }

  public static Heartbeat decode(BodyReader r) throws ProtocolException {
    Heartbeat h = new Heartbeat(r.string(256, "node id"), r.i64());
    r.finish();
    return h;
  }
}
