package io.kvpool.protocol;

/**
 * An object a storage node was told is deleted: no replica of this generation (or older) may come
 * back.
 */
public record Tombstone(String key, long generation) {
  static final int MIN_BYTES = 3 + 8;

  void encode(BodyWriter w) {
    w.string(key).i64(generation);
  }

  static Tombstone decode(BodyReader r) throws ProtocolException {
    return new Tombstone(r.key(), r.i64());
  }
}
