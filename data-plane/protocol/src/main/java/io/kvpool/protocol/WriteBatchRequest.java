package io.kvpool.protocol;

import java.util.List;

/**
 * Client -> storage node (protocol 2.1): many writes in one request, each exactly as a WRITE body
 * (its own grant); the payload is every write's {@code slice.length()} bytes one after the other,
 * in order.
 */
public record WriteBatchRequest(List<WriteRequest> writes) {
  public void encode(BodyWriter w) {
    w.list(writes, (b, x) -> x.encode(b));
  }

  public static WriteBatchRequest decode(BodyReader r) throws ProtocolException {
    WriteBatchRequest req =
        new WriteBatchRequest(
            r.list(ProtocolLimits.MAX_BATCH, WriteRequest.MIN_BYTES, WriteRequest::decodeFields));
    r.finish();
    return req;
  }

  /** Payload bytes that follow the body. */
  public long payloadBytes() {
    long n = 0;
    for (WriteRequest w : writes) {
      n += w.slice().length();
    }
    return n;
  }
}
