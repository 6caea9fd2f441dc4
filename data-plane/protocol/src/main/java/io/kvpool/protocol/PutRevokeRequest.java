package io.kvpool.protocol;

import java.util.List;

/** Client -> master: abandon these pending puts. */
public record PutRevokeRequest(List<PutRef> puts) {
  public void encode(BodyWriter w) {
    w.list(puts, (b, p) -> p.encode(b));
  }

  public static PutRevokeRequest decode(BodyReader r) throws ProtocolException {
    PutRevokeRequest req =
        new PutRevokeRequest(r.list(ProtocolLimits.MAX_BATCH, PutRef.MIN_BYTES, PutRef::decode));
    r.finish();
    return req;
  }
}
