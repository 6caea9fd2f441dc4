package io.kvpool.protocol;

import java.util.List;

/**
 * Client -> master (protocol 2.4): extents (by first generation) the client gives back; answered
 * with one status each. No write into a returned extent counts from then on.
 */
public record ExtentReturn(List<Long> extents) {
  public void encode(BodyWriter w) {
    w.list(extents, BodyWriter::i64);
  }

  public static ExtentReturn decode(BodyReader r) throws ProtocolException {
    ExtentReturn req = new ExtentReturn(r.list(ProtocolLimits.MAX_BATCH, 8, BodyReader::i64));
    r.finish();
    return req;
  }
}
