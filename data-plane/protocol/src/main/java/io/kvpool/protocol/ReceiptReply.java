package io.kvpool.protocol;

/**
 * Reply of WRITE and REPLICATE: the receipt when the replica is now complete and verified, else
 * empty.
 */
public record ReceiptReply(byte[] receipt) {
  public void encode(BodyWriter w) {
    w.bytes(receipt);
  }

  public static ReceiptReply decode(BodyReader r) throws ProtocolException {
    ReceiptReply reply = new ReceiptReply(r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "receipt"));
    r.finish();
    return reply;
  }
}
