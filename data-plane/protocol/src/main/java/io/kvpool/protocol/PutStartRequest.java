package io.kvpool.protocol;

import java.util.List;

/** Client -> master: allocate replicas for one or more objects. */
public record PutStartRequest(List<PutStartItem> items) {
  public void encode(BodyWriter w) {
    w.list(items, (b, i) -> i.encode(b));
  }

  public static PutStartRequest decode(BodyReader r) throws ProtocolException {
    PutStartRequest req =
        new PutStartRequest(
            r.list(ProtocolLimits.MAX_BATCH, PutStartItem.MIN_BYTES, PutStartItem::decode));
    r.finish();
    return req;
  }
}
