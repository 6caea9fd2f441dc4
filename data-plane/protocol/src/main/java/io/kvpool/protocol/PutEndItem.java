package io.kvpool.protocol;

import java.util.List;

/**
 * One put to complete: the object and the receipts its storage nodes returned for the replicas they
 * verified.
 */
public record PutEndItem(String key, long generation, List<Receipt> receipts) {
  static final int MIN_BYTES = 2 + 8 + 4;

  void encode(BodyWriter w) {
    w.string(key).i64(generation).list(receipts, (b, x) -> x.encode(b));
  }

  static PutEndItem decode(BodyReader r) throws ProtocolException {
    return new PutEndItem(r.anyKey(), r.i64(), r.list(255, Receipt.MIN_BYTES, Receipt::decode));
  }
}
