package io.kvpool.protocol;

/**
 * One put, named by its object: key and generation (so a revoke never hits another writer's put).
 */
public record PutRef(String key, long generation) {
  static final int MIN_BYTES = 2 + 8;

  void encode(BodyWriter w) {
    w.string(key).i64(generation);
  }

  static PutRef decode(BodyReader r) throws ProtocolException {
    return new PutRef(r.anyKey(), r.i64());
  }
}
