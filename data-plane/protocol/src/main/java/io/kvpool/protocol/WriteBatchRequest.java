package io.kvpool.protocol;

import io.kvpool.common.VersionInfo;
import java.util.List;

/**
 * Client -> storage node (protocol 2.1): many writes in one request, each exactly as a WRITE body
 * (its own grant; from 2.5 its own block metadata); the payload is every write's {@code
 * slice.length()} bytes one after the other, in order.
 */
public record WriteBatchRequest(List<WriteRequest> writes) {
  /** Encodes for a peer of this build's protocol minor. */
  public void encode(BodyWriter w) {
    encode(w, VersionInfo.PROTOCOL_MINOR);
  }

  /** Encodes for a peer that agreed on protocol minor {@code minor}. */
  public void encode(BodyWriter w, int minor) {
    w.list(writes, (b, x) -> x.encode(b, minor));
  }

  /** Decodes a WRITE_BATCH body of this build's protocol minor. */
  public static WriteBatchRequest decode(BodyReader r) throws ProtocolException {
    return decode(r, VersionInfo.PROTOCOL_MINOR);
  }

  /** Decodes a WRITE_BATCH body from a peer that agreed on protocol minor {@code minor}. */
  public static WriteBatchRequest decode(BodyReader r, int minor) throws ProtocolException {
    WriteBatchRequest req =
        new WriteBatchRequest(
            r.list(
                ProtocolLimits.MAX_BATCH,
                WriteRequest.MIN_BYTES,
                x -> WriteRequest.decodeFields(x, minor)));
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
