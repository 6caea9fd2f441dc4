package io.kvpool.protocol;

import java.util.List;

/** Master -> client: one result per requested object, in request order. */
public record PutStartReply(List<PutStartResult> results) {
  public void encode(BodyWriter w) {
    w.list(results, (b, x) -> x.encode(b));
  }

  public static PutStartReply decode(BodyReader r) throws ProtocolException {
    PutStartReply reply =
        new PutStartReply(
            r.list(ProtocolLimits.MAX_BATCH, PutStartResult.MIN_BYTES, PutStartResult::decode));
    r.finish();
    return reply;
  }
}
