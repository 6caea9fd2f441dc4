package io.kvpool.protocol;

import java.util.List;

/**
 * Client -> storage node (protocol 2.1): many reads in one request, each exactly as a READ body.
 * The reply lists a result per read and carries, as its payload, the bytes of every read that
 * succeeded, in order.
 */
public record ReadBatchRequest(List<ReadRequest> reads) {
  public void encode(BodyWriter w) {
    w.list(reads, (b, r) -> r.encode(b));
  }

  public static ReadBatchRequest decode(BodyReader r) throws ProtocolException {
    ReadBatchRequest req =
        new ReadBatchRequest(
            r.list(ProtocolLimits.MAX_BATCH, ReadRequest.MIN_BYTES, ReadRequest::decodeFields));
    r.finish();
    return req;
  }
}
