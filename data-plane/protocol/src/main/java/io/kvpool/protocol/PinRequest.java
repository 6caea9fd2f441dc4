package io.kvpool.protocol;

/** Client -> master: set or clear the soft pin of an object (pinned objects are never evicted). */
public record PinRequest(String key, boolean pinned) {
  public void encode(BodyWriter w) {
    w.string(key).bool(pinned);
  }

  public static PinRequest decode(BodyReader r) throws ProtocolException {
    PinRequest p = new PinRequest(r.key(), r.bool());
    r.finish();
    return p;
  }
}
