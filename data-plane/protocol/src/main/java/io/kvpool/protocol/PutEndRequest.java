package io.kvpool.protocol;

import java.util.List;

/** Client -> master: make these puts COMPLETE with the replicas their receipts prove. */
public record PutEndRequest(List<PutEndItem> items) {
  public void encode(BodyWriter w) {
    w.list(items, (b, i) -> i.encode(b));
  }

  public static PutEndRequest decode(BodyReader r) throws ProtocolException {
    PutEndRequest req =
        new PutEndRequest(
            r.list(ProtocolLimits.MAX_BATCH, PutEndItem.MIN_BYTES, PutEndItem::decode));
    r.finish();
    return req;
  }
}
