package io.kvpool.protocol;

/** One object a client wants to store: its key, size, CRC32C and replica count. */
public record PutStartItem(String key, int size, int checksum, int replicas) {
  static final int MIN_BYTES = 2 + 1 + 4 + 4 + 1;

  void encode(BodyWriter w) {
    w.string(key).i32(size).i32(checksum).u8(replicas);
  }

  static PutStartItem decode(BodyReader r) throws ProtocolException {
    String key = r.key();
    int size = r.index(ProtocolLimits.MAX_VALUE_BYTES, "value size");
    int checksum = r.i32();
    int replicas = r.u8();
    if (replicas < 1) {
      throw new ProtocolException("replica count must be at least 1");
    }
    return new PutStartItem(key, size, checksum, replicas);
  }
}
