package io.kvpool.protocol;

/**
 * A storage node's proof that it holds a complete, checksum-verified replica of an object: an HMAC
 * with the node's key over key, generation, value size and CRC32C. Returned by WRITE (and
 * REPLICATE), presented in PutEnd.
 */
public record Receipt(String nodeId, byte[] receipt) {
  static final int MIN_BYTES = 2 + 2;

  void encode(BodyWriter w) {
    w.string(nodeId).bytes(receipt);
  }

  static Receipt decode(BodyReader r) throws ProtocolException {
    return new Receipt(
        r.string(256, "node id"), r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "receipt"));
  }
}
